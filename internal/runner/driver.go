package runner

import "go.mongodb.org/mongo-driver/v2/version"

// DriverVersion is the MongoDB Go driver's own version, such as "2.9.3",
// as results record it (driverVersion).
func DriverVersion() string { return version.Driver }
