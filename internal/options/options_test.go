package options

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/price"
)

// envOf is an environment lookup over a map, as the cli hands one.
func envOf(m map[string]string) Env { return func(name string) string { return m[name] } }

// TestOptionsReadTheEnvironmentHandedIn: the client index and the results
// store's default come from the lookup the cli hands in, never from the
// process's environment.
func TestOptionsReadTheEnvironmentHandedIn(t *testing.T) {
	var o Measure
	fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
	o.Add(fl, Help{})
	if err := fl.Parse([]string{"--clients", "3", "--group", "g1"}); err != nil {
		t.Fatal(err)
	}
	lo, err := o.Options(context.Background(), envOf(map[string]string{"JOB_COMPLETION_INDEX": "2", "MONGOBENCH_RESULTS_URI": "mongodb://r/"}))
	if err != nil || lo.Group.Share.Index != 2 || lo.Group.Share.Clients != 3 || lo.ResultsURI != "mongodb://r/" {
		t.Errorf("got %+v, %v; want client 2 of 3 and the results URI from the lookup", lo.Group, err)
	}
	if _, err := o.Options(context.Background(), envOf(nil)); err == nil || !strings.Contains(err.Error(), "JOB_COMPLETION_INDEX is not set") {
		t.Errorf("no index: got %v, want the variable named", err)
	}
}

// TestFromEnv: a variable sets a flag the command line left out, never one
// it gave, and a value the flag refuses names the variable.
func TestFromEnv(t *testing.T) {
	var o Measure
	fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
	o.Add(fl, Help{})
	Alias(fl, "results-uri", "results")
	if err := fl.Parse([]string{"--results-uri", "mongodb://given/"}); err != nil {
		t.Fatal(err)
	}
	env := envOf(map[string]string{"MONGOBENCH_RESULTS": "mongodb://env/", "MONGOBENCH_CLIENTS": "two", "MONGOBENCH_LINK": "10Gbit/s"})
	err := FromEnv(fl, env)
	if o.ResultsURI != "mongodb://given/" || o.Link != "10Gbit/s" {
		t.Errorf("got results %q, link %q: want the alias's value kept and the link from the variable", o.ResultsURI, o.Link)
	}
	if err == nil || !strings.Contains(err.Error(), `MONGOBENCH_CLIENTS=two: --clients: "two" is not valid: want a number (int)`) {
		t.Errorf("got %v, want the variable and its flag named", err)
	}
}

// TestPriceOneGrammar: --price reads price.Parse's grammar, any
// currency, per hour or per month.
func TestPriceOneGrammar(t *testing.T) {
	var p *price.Price
	v := PriceOf(&p)
	if err := v.Set("694 EUR/month"); err != nil || p.Currency != "EUR" || p.PerMonth() != 694 {
		t.Errorf("694 EUR/month: got %+v, %v", p, err)
	}
	if err := v.Set("3.20 dollars"); err == nil {
		t.Error("3.20 dollars: got no error, want the grammar refused")
	}
}

// TestMinEffects: --min-effect takes a kind of metric or one metric with
// a percentage, repeatable; anything else names what is valid.
func TestMinEffects(t *testing.T) {
	var m MinEffects
	fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
	MinEffect(fl, &m, "")
	if err := fl.Parse([]string{"--min-effect", "p99=20%", "--min-effect", " throughput = 3", "--min-effect", "p99 READ=7.5%"}); err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m["p99"] != 0.2 || m["throughput"] != 0.03 || m["p99 READ"] != 0.075 {
		t.Errorf("got %v", m)
	}
	for _, bad := range []string{"p99", "p99=-1%", "p99=x", "latency=5%", "p99=NaN%", "p99=+Inf", "p99=1001%"} {
		if err := m.Set(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	if err := m.Set("p99=ten"); err == nil || !strings.Contains(err.Error(), "want KIND=PERCENT, a percent from 0 to 1000, such as p99=10% or throughput=3%") {
		t.Errorf("a bad percentage: %v", err)
	}
}

// TestLimits: --disk-limit and --link, each optional, read by
// diagnosis's parsers; a bad one names its flag.
func TestLimits(t *testing.T) {
	l, err := Limits("225MB/s,3000iops", "10Gbit/s")
	if err != nil || l.DiskBytesPerSec != 225<<20 || l.DiskIOPS != 3000 || l.LinkBytesPerSec != 1.25e9 {
		t.Errorf("got %+v, %v", l, err)
	}
	if l, err := Limits("", ""); err != nil || l != (diagnosis.Limits{}) {
		t.Errorf("none stated: %+v, %v", l, err)
	}
	if _, err := Limits("fast", ""); err == nil || !strings.HasPrefix(err.Error(), "--disk-limit: ") {
		t.Errorf("a bad disk limit: %v", err)
	}
	if _, err := Limits("", "fast"); err == nil || !strings.HasPrefix(err.Error(), "--link: ") {
		t.Errorf("a bad link: %v", err)
	}
}

// A bad flag value reads as the tool's other errors do, naming the flag
// and what is valid; other errors pass as they are.
func TestFlagError(t *testing.T) {
	fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var m MinEffects
	MinEffect(fl, &m, "")
	fl.Int("threads", 1, "")
	for args, want := range map[string]string{
		"--threads=x":             `--threads: "x" is not valid: want a number (int)`,
		"--min-effect=p99=x":      `--min-effect: "p99=x": want KIND=PERCENT, a percent from 0 to 1000, such as p99=10% or throughput=3%`,
		"--min-effect=p99=NaN%":   `--min-effect: "p99=NaN%": want KIND=PERCENT, a percent from 0 to 1000, such as p99=10% or throughput=3%`,
		"--min-effect=p99=1e400%": `--min-effect: "p99=1e400%": want KIND=PERCENT, a percent from 0 to 1000, such as p99=10% or throughput=3%`,
		"--nosuch":                "unknown flag: --nosuch",
	} {
		err := fl.Parse([]string{args})
		if got := FlagError(err); got == nil || got.Error() != want {
			t.Errorf("%s: %v, want %q", args, got, want)
		}
	}
}

// TestResultsNotAURI: a --results that is no connection string is refused
// without its value; one that has no scheme is told of --results-file.
func TestResultsNotAURI(t *testing.T) {
	for _, tc := range []struct {
		value string
		hint  bool
	}{
		{"/tmp/results.jsonl", true},
		{"results.jsonl", true},
		{"http://user:secret@db/", false},
	} {
		var o Measure
		fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
		o.Add(fl, Help{})
		if err := fl.Parse([]string{"--results", tc.value}); err != nil {
			t.Fatal(err)
		}
		_, err := o.Options(context.Background(), envOf(nil))
		if err == nil || !strings.HasPrefix(err.Error(), "--results: ") {
			t.Fatalf("%s: got %v, want --results refused", tc.value, err)
		}
		if got := strings.Contains(err.Error(), "--results-file"); got != tc.hint {
			t.Errorf("%s: got %q, want the --results-file hint %v", tc.value, err, tc.hint)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error %q echoes the password", tc.value, err)
		}
	}
}
