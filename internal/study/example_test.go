package study_test

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
)

func ExampleJudge() {
	sla, err := study.ParseSLA("20ms", "", "")
	if err != nil {
		panic(err)
	}
	run := study.Run{Mode: "per-op", TPS: 5000, P50: result.F(4.2), P99: result.F(24.1), Achieved: 4870, Failed: 3}
	fmt.Println(study.Judge(run, sla))

	run = study.Run{Mode: "client-bulk", TPS: 5000, P50: result.F(3.1), P99: result.F(20), Achieved: 4950}
	fmt.Println(study.Judge(run, sla))
	// Output:
	// FAIL: p99 24.1 ms > 20 ms; achieved 4,870/s < 99% of 5,000/s; 3 transactions failed
	// PASS
}
