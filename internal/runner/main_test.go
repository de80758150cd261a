package runner_test

import (
	"testing"

	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
