package bench_test

import (
	"os"
	"testing"

	"github.com/mongobench/mongobench/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Cleanup()
	os.Exit(code)
}
