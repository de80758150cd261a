package cli_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// readmeMaxLines is the README's size limit: it is the front door, the
// manual is under docs/.
const readmeMaxLines = 200

// example is one command line of a README code block.
type example struct {
	line       int    // in README.md
	text       string // as written
	args       []string
	background bool // ends in '&': runs beside the '&' lines right after it
}

// TestREADMEExamples runs every mongobench command of README.md's code
// blocks, as written, against the test server, in the README's order
// and from the repository's root. The test only appends flags that point
// the command at the test server, a test database and temporary results
// and reports, and that shrink it (shorter phases, fewer records, one
// repetition); a later flag overrides an earlier one. An example fails
// when it exits non-zero, or, for an example whose purpose is a verdict
// (a threshold, an SLA, a plan's constraints), with a code other than 0
// or 99. The README must stay under 200 lines.
func TestREADMEExamples(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines, want under %d: move the detail to a page under docs/", n, readmeMaxLines)
	}
	examples, err := readmeExamples(string(src))
	if err != nil {
		t.Fatal(err)
	}
	// Every capability the README presents has an example.
	for _, want := range []string{"run", "sweep", "compare", "sla", "catalog run", "report", "plan", "serve", "--clients"} {
		if !slices.ContainsFunc(examples, func(e example) bool { return strings.Contains(" "+e.text+" ", " "+want+" ") }) {
			t.Errorf("README.md has no example of %q", want)
		}
	}

	uri := testenv.URI(t)
	testenv.Servers(t) // the plan example starts local server profiles
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	tmp := t.TempDir()
	env := readmeEnv{
		uri: uri, db: db,
		results: filepath.Join(tmp, "results.jsonl"),
		reports: filepath.Join(tmp, "reports"),
		group:   fmt.Sprintf("readme-%d", time.Now().UnixNano()),
	}
	t.Chdir("../..") // the README's commands run from the repository's root

	start := time.Now()
	var batch []example
	for i, e := range examples {
		batch = append(batch, e)
		if e.background && i+1 < len(examples) && examples[i+1].background && examples[i+1].line == e.line+1 {
			continue
		}
		env.run(t, batch)
		batch = nil
	}
	t.Logf("%d examples in %s", len(examples), time.Since(start).Round(time.Millisecond))
}

type readmeEnv struct {
	uri, db, results, reports, group string
}

// run runs one example, or a batch of background examples together as
// separate processes (they are the clients of one run group).
func (r readmeEnv) run(t *testing.T, batch []example) {
	t.Helper()
	if len(batch) == 1 {
		r.runOne(t, batch[0])
		return
	}
	bin := groupBinary(t)
	start := time.Now()
	var cs []*client
	for _, e := range batch {
		args, _, err := r.shrink(e.args)
		if err != nil {
			t.Fatalf("README.md:%d: %s: %v", e.line, e.text, err)
		}
		c := &client{cmd: exec.Command(bin, args...), done: make(chan struct{})}
		c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { c.err = c.cmd.Wait(); close(c.done) }()
		t.Cleanup(func() { _ = c.cmd.Process.Kill(); <-c.done })
		cs = append(cs, c)
	}
	for i, c := range cs {
		c.wait(t, 90*time.Second)
		if c.err != nil {
			t.Errorf("README.md:%d: %s\n%v\nstdout:\n%s\nstderr:\n%s", batch[i].line, batch[i].text, c.err, c.stdout.String(), c.stderr.String())
		}
	}
	t.Logf("README.md:%d-%d: %d clients together in %s", batch[0].line, batch[len(batch)-1].line, len(batch), time.Since(start).Round(time.Millisecond))
}

func (r readmeEnv) runOne(t *testing.T, e example) {
	t.Helper()
	args, verdict, err := r.shrink(e.args)
	if err != nil {
		t.Fatalf("README.md:%d: %s: %v", e.line, e.text, err)
	}
	var o outcome
	if e.args[0] == "serve" {
		o = r.serve(t, args)
	} else {
		o = mb(t, args...)
	}
	t.Logf("README.md:%d: %s: exit %d in %s", e.line, e.text, o.code, o.took.Round(time.Millisecond))
	if o.code == cli.ExitOK || verdict && o.code == cli.ExitVerdict {
		return
	}
	// A plan whose candidate's every run, measured again, was judged
	// invalid (a host losing a fifth of its CPU to steal) rightly gives
	// no answer; it must say so, naming the rule, not answer wrongly.
	if e.args[0] == "plan" && o.code == cli.ExitFailure && strings.Contains(o.stderr, "were judged invalid (") &&
		strings.Contains(o.stderr, "--include-invalid counts them") {
		t.Logf("README.md:%d: this host made every run of a candidate invalid, and the plan said so:\n%s", e.line, o.stderr)
		return
	}
	t.Errorf("README.md:%d: %s\nran as: mongobench %s\n%s", e.line, e.text, strings.Join(args, " "), o)
}

// serve runs a serve example until its first page answers, then stops it.
func (r readmeEnv) serve(t *testing.T, args []string) outcome {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	args = append(args, "--listen", addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var o outcome
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		var out, errOut strings.Builder
		o.code = cli.Main(ctx, args, &out, &errOut)
		o.stdout, o.stderr = out.String(), errOut.String()
	}()
	status := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && status != http.StatusOK; {
		select {
		case <-done:
			o.took = time.Since(start)
			t.Errorf("serve ended before it answered:\n%s", o)
			return o
		case <-time.After(100 * time.Millisecond):
		}
		if res, err := http.Get("http://" + addr + "/"); err == nil {
			status = res.StatusCode
			_ = res.Body.Close()
		}
	}
	if status != http.StatusOK {
		t.Errorf("serve: GET / answered %d, want 200", status)
	}
	cancel()
	<-done
	o.took = time.Since(start)
	return o
}

// shrink returns the example's arguments with what the test appends, and
// whether the example's purpose is a verdict (exit 0 or 99).
func (r readmeEnv) shrink(args []string) ([]string, bool, error) {
	has := func(flag string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
	}
	workload := "kv"
	for i, a := range args {
		if a == "--workload" && i+1 < len(args) {
			workload = args[i+1]
		}
	}
	records := []string{"-p", "records=200"}
	if strings.HasPrefix(workload, "ycsb-") {
		records = []string{"-p", "recordcount=200"}
	}
	target := []string{"--uri", r.uri, "--database", r.db}
	store := []string{"--results-file", r.results, "--report-dir", r.reports}
	short := []string{"--duration", "1s", "--warmup", "0s"}
	verdict := has("--threshold") || has("--p99")
	out := slices.Clone(args)
	cmd := args[0]
	if len(args) > 1 && slices.Contains([]string{"catalog", "results", "server"}, cmd) || len(args) > 1 && cmd == "sla" && args[1] == "journey" {
		cmd += " " + args[1]
	}
	switch cmd {
	case "run", "sweep":
		out = append(out, target...)
		out = append(out, short...)
		out = append(out, records...)
		if has("--clients") { // a run group needs a MongoDB results store: the target's
			out = append(out, "--group", r.group, "--report-dir", r.reports)
		} else {
			out = append(out, store...)
		}
	case "sla":
		out = append(out, target...)
		out = append(out, store...)
		out = append(out, short...)
		out = append(out, "--repeat", "1", "-p", "accounts=200")
		verdict = true
	case "catalog run": // results go to the target, where 'report' reads them
		out = append(out, target...)
		out = append(out, "--scale", "0.0001")
	case "report":
		out = append(out, "--results", r.uri, "-o", filepath.Join(r.reports, "performance-tables.md"))
	case "plan":
		out = append(out, store...)
		verdict = true
	case "compare":
		out = append(out, store...)
	case "changes": // its triage lives in a MongoDB results store
		out = append(out, "--results", r.uri)
		verdict = has("--fail-on-new")
	case "serve", "results list", "results show", "sla journey":
		out = append(out, "--results-file", r.results)
	case "catalog list", "workloads", "version":
	default:
		return nil, false, fmt.Errorf("no rule for %q: say in TestREADMEExamples how to run it against the test server", cmd)
	}
	return out, verdict, nil
}

// readmeExamples returns the mongobench command lines of the Markdown's
// code blocks, fenced or indented, with continued lines joined.
func readmeExamples(md string) ([]example, error) {
	var out []example
	lines := strings.Split(md, "\n")
	fenced := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		indented := !fenced && strings.HasPrefix(l, "    ") && strings.TrimSpace(l) != ""
		if !fenced && !indented {
			continue
		}
		at := i + 1
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		text := strings.TrimSpace(l)
		if !strings.HasPrefix(text, "mongobench ") {
			continue
		}
		words, err := shellWords(text)
		if err != nil {
			return nil, fmt.Errorf("README.md:%d: %v", at, err)
		}
		e := example{line: at, text: text}
		if n := len(words); n > 0 && words[n-1] == "&" {
			e.background, words = true, words[:n-1]
		}
		e.args = words[1:]
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("README.md has no mongobench example")
	}
	return out, nil
}

// shellWords splits a command line as a POSIX shell would for the README's
// examples: words separated by blanks, '...' and "..." quoting, a comment
// from an unquoted '#' that starts a word, and '&' as a word of its own.
// A '$' outside single quotes is refused: an example may not depend on
// the reader's variables.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '&' && !inWord:
			words = append(words, "&")
		case c == '$':
			return nil, fmt.Errorf("%q: an example may not use shell variables", s)
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("%q: unterminated quote", s)
			}
			q := s[i+1 : i+1+end]
			if c == '"' && strings.ContainsAny(q, "$`\\") {
				return nil, fmt.Errorf("%q: an example may not use shell expansions", s)
			}
			cur.WriteString(q)
			inWord = true
			i += end + 1
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
