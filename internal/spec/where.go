package spec

import (
	"github.com/mongobench/mongobench/internal/uri"
)

// Where is what a scenario file says beside the run itself: the target it
// measures (uri, hostMetrics, hostDevice) and where its result goes
// (results: {uri, file}). The run command turns it into the measuring
// environment's options, its flags winning over the file.
type Where struct {
	// Target holds the file's uri ("" the command's default), hostMetrics
	// and hostDevice.
	Target  Target
	Results Results
}

// Results says where a run's result goes: a results store's MongoDB URI,
// or a JSON Lines file; neither: the command's default.
type Results struct{ URI, File string }

// whereKey reports whether a scenario file's key path is one of Where's.
func whereKey(path string) bool {
	switch path {
	case "uri", "hostMetrics", "hostDevice", "results.uri", "results.file":
		return true
	}
	return false
}

// setText sets the Where setting named by key from its text form.
func (w *Where) setText(key, text string) {
	switch key {
	case "uri":
		w.Target.URI = text
	case "hostMetrics":
		w.Target.HostMetrics = ParseHostMetrics(text)
	case "hostDevice":
		w.Target.HostDevice = ParseHostDevices(text)
	case "results.uri":
		w.Results.URI = text
	case "results.file":
		w.Results.File = text
	}
}

// problems checks the settings, located by o (the scenario's origin).
func (w *Where) problems(o *origin) []*Error {
	var errs []*Error
	check := func(key string, ok bool, value string) {
		if !ok && !o.key(key).bad {
			e := o.at(key)
			e.Value, e.Want = value, want(key)
			errs = append(errs, e)
		}
	}
	t := w.Target
	check("uri", validURI(t.URI), uri.Redact(t.URI)) // never echo a password
	if err := checkHostMetricsList(t.HostMetrics); err != nil && !o.key("hostMetrics").bad {
		e := o.at("hostMetrics")
		e.Problem = err.Error() // its want included; the value without a password
		errs = append(errs, e)
	}
	if err := CheckHostDevices(t.HostDevice); err != nil && !o.key("hostDevice").bad {
		e := o.at("hostDevice")
		e.Problem, e.Want = err.Error(), want("hostDevice")
		errs = append(errs, e)
	}
	check("hostDevice", len(t.HostDevice) == 0 || len(t.HostMetrics) > 0, HostDevicesText(t.HostDevice))
	check("results.uri", validURI(w.Results.URI), uri.Redact(w.Results.URI))
	return errs
}
