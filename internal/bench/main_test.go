package bench_test

import (
	"testing"

	"github.com/mongobench/mongobench/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
