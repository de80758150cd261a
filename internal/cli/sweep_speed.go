package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/replay"
	"github.com/mongobench/mongobench/internal/workload/recorded"
)

// speedsAsRates makes sweep's --speed list the target rates it stands
// for: each speed times the rate of the recording --workload names (its
// path, or replay's -p file); auto is --rate auto from the recording's
// own rate (×1) to at most ×1000, unless --start-rate or --max-rate say
// otherwise. Nothing when --speed is not given.
func speedsAsRates(fs *pflag.FlagSet, speeds, name string, params []string) error {
	if speeds == "" {
		return nil
	}
	if fs.Changed("rate") {
		return fmt.Errorf("--speed %s: give the speeds of a recording or --rate, not both", speeds)
	}
	path := name
	if name == recorded.Name {
		path = ""
	}
	// The rate a speed multiplies is the plan's the run replays: with
	// the monitoring it includes when -p includeMonitoring says so.
	o := replay.Options{Speed: 1, AllowWrites: true}
	for _, p := range params {
		if v, ok := strings.CutPrefix(p, "file="); ok && name == recorded.Name {
			path = v
		}
		if v, ok := strings.CutPrefix(p, "includeMonitoring="); ok {
			o.IncludeMonitoring, _ = strconv.ParseBool(v) // a bad value is the run's parameter error
		}
	}
	if path == "" {
		return fmt.Errorf("--speed %s: a recording's speeds; --workload names none (a recording's path, or replay with -p file=)", speeds)
	}
	plan, err := recorded.Load(path, o)
	if err != nil {
		return fmt.Errorf("--speed: %w", err)
	}
	rate := plan.RecordedRate()
	if rate <= 0 {
		return fmt.Errorf("--speed: %s has %d request(s) over %v, no rate to multiply", path, len(plan.Requests), plan.Span)
	}
	if strings.TrimSpace(speeds) == "auto" {
		// The rate search from the recording's own pace (×1), each step
		// --rate-factor times the last, to at most ×1000.
		for name, v := range map[string]float64{"start-rate": rate, "max-rate": 1000 * rate} {
			if !fs.Changed(name) {
				if err := fs.Set(name, strconv.FormatFloat(v, 'f', -1, 64)); err != nil {
					return fmt.Errorf("--speed auto: %w", err)
				}
			}
		}
		return fs.Set("rate", "auto")
	}
	var rates []string
	for _, s := range strings.Split(speeds, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(x > 0) || x > 1000 {
			return fmt.Errorf("--speed %s: %q is not a speed; want numbers above 0, at most 1000, comma-separated (1,2,4,8), or auto", speeds, s)
		}
		rates = append(rates, strconv.FormatFloat(x*rate, 'f', -1, 64))
	}
	return fs.Set("rate", strings.Join(rates, ","))
}
