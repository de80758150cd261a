package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// defaultStatusInterval is how often a run not on a terminal prints a
// status line, as YCSB's -s does.
const defaultStatusInterval = 10 * time.Second

// statusFlag declares --status-interval on fl: how often a run whose
// standard error is not a terminal (a CI log, a pipe) prints a plain
// status line.
func (a *app) statusFlag(fl *pflag.FlagSet) {
	fl.DurationVar(&a.statusInterval, "status-interval", defaultStatusInterval,
		"when standard error is not a terminal: print a status line this often (elapsed, ops/s, p99, errors, late); 0 prints none")
}

// checkStatusInterval refuses a negative --status-interval.
func (a *app) checkStatusInterval() error {
	if a.statusInterval < 0 {
		return usage(fmt.Errorf("--status-interval: got %s, want 0 (no status lines) or a positive duration such as 10s", a.statusInterval))
	}
	return nil
}
