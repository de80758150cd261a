package spec

import (
	"fmt"
	"strings"
)

// ResultsDatabase is the database the tool keeps its results in, on the
// results server. The store writes there; no workload ever does.
const ResultsDatabase = "mongobench"

// reserved are the database names a workload's data may never use, with
// why: the results database, and MongoDB's own. Names are compared
// without regard to case, as MongoDB refuses two databases whose names
// differ only in case.
var reserved = []struct{ name, why string }{
	{ResultsDatabase, "mongobench keeps its results there"},
	{"admin", "it is MongoDB's own"},
	{"local", "it is MongoDB's own"},
	{"config", "it is MongoDB's own"},
}

// ReservedDatabases lists the names CheckDataDatabase refuses.
func ReservedDatabases() []string {
	names := make([]string, len(reserved))
	for i, r := range reserved {
		names[i] = r.name
	}
	return names
}

// CheckDataDatabase refuses a data database name the tool reserves, so
// that no workload writes to, marks or drops the results database or one
// of MongoDB's own. The error is one line and names the flag.
func CheckDataDatabase(name string) error {
	if why, ok := reservedWhy(name); ok {
		return &Error{Field: "--database", Problem: reservedProblem(name, why), Want: wantDataDatabase}
	}
	return nil
}

func reservedWhy(name string) (string, bool) {
	for _, r := range reserved {
		if strings.EqualFold(name, r.name) {
			return r.why, true
		}
	}
	return "", false
}

func reservedProblem(name, why string) string {
	return fmt.Sprintf("%q is reserved (%s)", clip(name), why)
}

// wantDataDatabase says which names a data database may have.
var wantDataDatabase = "a database name other than " + strings.Join(ReservedDatabases(), ", ") + " (in any case), such as " + DefaultDatabase

// reservedDatabaseProblem reports a scenario whose data database is
// reserved, at the database key.
func (s *Scenario) reservedDatabaseProblem() []*Error {
	o := s.origin()
	why, ok := reservedWhy(s.Database)
	if !ok || o.key("database").bad {
		return nil
	}
	e := o.at("database")
	e.Problem, e.Want = reservedProblem(s.Database, why), wantDataDatabase
	return []*Error{e}
}
