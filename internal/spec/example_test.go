package spec_test

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/spec"
)

func ExampleParseRate() {
	for _, text := range []string{"2000/s", "120/m", "1.5k/s", "-5/s"} {
		r, err := spec.ParseRate(text)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r)
	}
	// Output:
	// 2000/s
	// 2/s
	// 1500/s
	// "-5/s" is not valid: want a positive rate up to 10M/s, such as 2000/s or 500
}

func ExampleParse() {
	reg := spec.MapRegistry{"kv": {
		{Name: "records", Kind: spec.KindInt, Default: "1000", Min: "1"},
		{Name: "docSize", Kind: spec.KindSize, Default: "1KB"},
	}}
	s, err := spec.Parse("kv.yaml", []byte("workload: kv\nrate: 2k/s\nparams:\n  docSize: 4KB\n"), reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.Rate, s.Threads, s.Duration, s.Params.Int("records"), s.Params.Size("docSize"))

	_, err = spec.Parse("kv.yaml", []byte("workload: kv\ndurration: 60s\nparams:\n  records: 0\n"), reg)
	fmt.Println(err)
	// Output:
	// kv 2000/s 64 30s 1000 4KB
	// kv.yaml:2: unknown key "durration" (did you mean "duration"? valid keys: name, workload, uri, database, rate, stages, threads, duration, ops, warmup, interval, maxLag, arrival, hostMetrics, hostDevice, seed, label, tags, repetition, params, results, thresholds)
	// kv.yaml:4: params.records: "0" is not valid: want an integer between 1 and 1e10
}
