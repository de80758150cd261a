package runner

import (
	"slices"
	"strings"
	"testing"
)

// Every source is one kind (a host source or a series source during the
// run, or a source read after it), its When says which, and its name is
// its own.
func TestSourcesAreAList(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Sources {
		_, host := s.(hostSource)
		_, series := s.(seriesSource)
		_, after := s.(afterSource)
		kinds := 0
		for _, k := range []bool{host, series, after} {
			if k {
				kinds++
			}
		}
		if kinds != 1 {
			t.Errorf("%s: host %v, series %v, after %v: want one kind", s.Name(), host, series, after)
		}
		if (after && s.When() != After) || (!after && s.When() != During) {
			t.Errorf("%s: reads %s, but is an after source: %v", s.Name(), s.When(), after)
		}
		if seen[s.Name()] || s.Name() == "" || s.Reads() == "" {
			t.Errorf("%q: a name of its own and what it reads, please (reads %q)", s.Name(), s.Reads())
		}
		seen[s.Name()] = true
	}
}

func names(list []Source) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name())
	}
	return out
}

func TestChosenSources(t *testing.T) {
	def := names(chosen(nil))
	if want := []string{"node_exporter", "proc", "diagnostic_data", "atlas", "ftdc_files"}; !slices.Equal(def, want) {
		t.Errorf("default sources %v, want %v", def, want)
	}
	if got := names(chosen([]string{"diagnostic_data", "proc", "connections"})); !slices.Equal(got, []string{"diagnostic_data", "proc", "connections"}) {
		t.Errorf("chosen %v: want the user's order", got)
	}
	if err := CheckSources([]string{"proc", "connections"}); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{{"prok"}, {"proc", "proc"}, {""}} {
		err := CheckSources(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "--telemetry: ") {
			t.Errorf("%q: got %v, want an error naming --telemetry", bad, err)
		}
	}
	if err := CheckSources([]string{"prok"}); err == nil || !strings.Contains(err.Error(), strings.Join(SourceNames(), ", ")) {
		t.Errorf("got %v, want the valid names", err)
	}
}
