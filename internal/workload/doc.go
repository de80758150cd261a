// Package workload holds the operations mongobench sends to MongoDB. A
// Workload declares its parameters, prepares its data in a database the
// tool owns, and builds one engine.Task per worker for the engine to drive.
//
// It also classifies driver errors for the engine, and guards the data
// database: the tool writes only into databases that carry its marker.
package workload
