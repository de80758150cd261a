package cli_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// The marker's two halves; no output, stored document, report or rescue
// file may contain either, whatever character joins them.
const (
	markA = "Zq7S3cr3t"
	markB = "Mk9Pa55"
)

// TestSecretsNeverLeave runs every command against a server that requires
// authentication, with the marker in each form issue 14 found leaking: a
// '?' in the password (the driver logs in), a '/' in it and a bad
// percent-escape (the driver refuses the string), and the marker as the
// value of proxyPassword, tlsCertificateKeyFilePassword and
// authMechanismProperties. It then greps everything the commands printed,
// every file they wrote (reports, results files, rescue files) and every
// stored document (results and history) for either half of the marker.
func TestSecretsNeverLeave(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an authenticating server and runs every command")
	}
	const user, good = "secretuser", "GoodPassw0rdQ7x"
	qmark := markA + "?" + markB
	h := testenv.Own(t, server.Options{ExtraArgs: []string{"--auth"}})
	createUser(t, h, user, good)
	createUser(t, h, "qmarkuser", qmark)
	hostPort := fmt.Sprintf("127.0.0.1:%d", h.Port)
	admin := fmt.Sprintf("mongodb://%s:%s@%s/?directConnection=true", user, good, hostPort)

	forms := []struct {
		name   string
		uri    string
		logsIn bool // the driver accepts the string and the server the login
	}{
		{"question mark in the password", "mongodb://qmarkuser:" + qmark + "@" + hostPort + "/?directConnection=true", true},
		{"slash in the password", "mongodb://qmarkuser:" + markA + "/" + markB + "@" + hostPort + "/?directConnection=true", false},
		{"bad percent-escape in the password", "mongodb://qmarkuser:" + markA + "%zz" + markB + "@" + hostPort + "/?directConnection=true", false},
		{"proxyPassword", admin + "&proxyHost=127.0.0.1&proxyPort=1&proxyUsername=p&proxyPassword=" + markA + markB, true},
		{"tlsCertificateKeyFilePassword", admin + "&tlsCertificateKeyFilePassword=" + markA + markB, true},
		{"bad percent-escape in tlsCertificateKeyFilePassword", admin + "&tlsCertificateKeyFilePassword=" + markA + "%zz" + markB, false},
		{"authMechanismProperties", admin + "&authMechanismProperties=AWS_SESSION_TOKEN:" + markA + markB, true},
	}
	template, err := filepath.Abs("../../templates/performance-tables.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir) // rescue files land in the working directory
			db := testenv.DBName(t)
			plan := filepath.Join(dir, "plan.yaml")
			planText := "name: secrets\nscenario: {workload: kv, threads: 2, duration: 1s, params: {records: 100}}\nruns: 1\n" +
				"candidates:\n  - {label: a, uri: '" + f.uri + "', price: 100 EUR/month, baseline: true}\n" +
				"  - {label: b, uri: '" + f.uri + "', price: 200 EUR/month}\n" +
				"demand: {users: 10, load: 80%, stages: [{name: one, users: 20}]}\n"
			if err := os.WriteFile(plan, []byte(planText), 0o644); err != nil {
				t.Fatal(err)
			}
			scenario := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(scenario, []byte("workload: kv\nthreads: 2\nops: 100\nuri: '"+f.uri+"'\ndatabase: "+db+"\nparams: {records: 100}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rep := filepath.Join(dir, "reports")
			short := []string{"--duration", "1s", "--warmup", "0s"}
			commands := [][]string{
				{"run", "--uri", f.uri, "--database", db, "--threads", "2", "--ops", "200", "-p", "records=100", "--json", "--report-dir", rep},
				{"run", scenario, "--report-dir", rep},
				{"run", "--uri", f.uri, "--database", db, "--threads", "2", "--ops", "100", "-p", "records=100", "--results-file", filepath.Join(dir, "missing", "r.jsonl"), "--no-report"},
				append([]string{"sla", "--uri", f.uri, "--database", db, "--rate", "20", "--p99", "1s", "--repeat", "1", "--modes", "per-op", "-p", "accounts=100", "--report-dir", rep}, short...),
				append([]string{"sweep", "--uri", f.uri, "--database", db, "--workload", "kv", "--rate", "50", "-p", "records=100", "--report-dir", rep}, short...),
				append([]string{"calibrate", "--uri", f.uri, "--database", db, "--workload", "kv", "--start-threads", "1", "--max-threads", "2", "-p", "records=100", "--report-dir", rep}, short...),
				{"load", "--uri", f.uri, "--database", db, "--workload", "ycsb-a", "-p", "recordcount=100", "--report-dir", rep},
				{"catalog", "run", "insert_docsize", "--uri", f.uri, "--database", db, "--scale", "0.0001", "--label", "secrets"},
				{"plan", plan, "--report-dir", rep, "--results", f.uri},
				{"results", "list", "--results", f.uri},
				{"results", "list", "--results", f.uri, "--json"},
				{"report", "--results", f.uri, "-o", filepath.Join(rep, "tables.md")},
				{"tables", template, "--results", f.uri, "-o", filepath.Join(rep, "tables2.md")},
				{"clean", "--uri", f.uri, "--database", db},
				{"server", "status"},
			}
			ran := 0
			for _, args := range commands {
				o := mb(t, args...)
				t.Logf("%s: exit %d", strings.Join(args[:2], " "), o.code)
				wantNoMarker(t, strings.Join(args[:1], " ")+" output", o.stdout+o.stderr)
				if args[0] == "run" && len(args) > 2 && args[1] == "--uri" && o.code == 0 {
					ran++
					if id := runID(o.stdout); id != "" {
						o := mb(t, "results", "show", id, "--results", f.uri, "--json", "--report-dir", rep)
						wantNoMarker(t, "results show output", o.stdout+o.stderr)
					}
				}
			}
			if f.logsIn && ran == 0 {
				t.Errorf("no run succeeded with a connection string the driver accepts; the test proved nothing")
			}
			files := 0
			err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || path == plan || path == scenario {
					return err
				}
				files++
				b, err := os.ReadFile(path)
				if err == nil {
					wantNoMarker(t, "file "+path, string(b))
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if f.logsIn && files == 0 {
				t.Errorf("no report, results or rescue file written; the test proved nothing")
			}
			stored := storedText(t, admin)
			wantNoMarker(t, "stored documents", stored)
		})
	}
}

func wantNoMarker(t *testing.T, where, text string) {
	t.Helper()
	for _, m := range []string{markA, markB} { // escaping leaves both halves as they are
		if i := strings.Index(text, m); i >= 0 {
			lo, hi := max(0, i-120), min(len(text), i+120)
			t.Errorf("%s holds the marker %q: …%s…", where, m, text[lo:hi])
		}
	}
}

var runIDPattern = regexp.MustCompile(`"runId":\s*"([^"]+)"`)

func runID(out string) string {
	if m := runIDPattern.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

func createUser(t *testing.T, h *server.Handle, user, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	uri := h.URI
	if user != "secretuser" { // the first user is made through the localhost exception
		uri = fmt.Sprintf("mongodb://secretuser:GoodPassw0rdQ7x@127.0.0.1:%d/?directConnection=true", h.Port)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatalf("connect to the auth server: %v", err)
	}
	defer c.Disconnect(ctx)
	create := bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: password}, {Key: "roles", Value: bson.A{"root"}}}
	if err := c.Database("admin").RunCommand(ctx, create).Err(); err != nil {
		t.Fatalf("create user %s: %v", user, err)
	}
}

// storedText is every document of the results database as Extended JSON.
func storedText(t *testing.T, uri string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := connect(t, uri)
	db := c.Database("mongobench")
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatalf("list results collections: %v", err)
	}
	var b strings.Builder
	for _, n := range names {
		cur, err := db.Collection(n).Find(ctx, bson.D{})
		if err != nil {
			t.Fatalf("read %s: %v", n, err)
		}
		var rows []bson.Raw
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatalf("read %s: %v", n, err)
		}
		for _, r := range rows {
			b.WriteString(r.String() + "\n")
		}
	}
	return b.String()
}
