// Package nodeexporter starts a real Prometheus node exporter (Debian's
// prometheus-node-exporter, which 'make setup' installs) on a loopback
// port for a test, and stops it when the test ends. A test that needs one
// fails, never skips, when it cannot be started, unless it runs with
// -short.
package nodeexporter

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Bin is the node exporter's program: $MONGOBENCH_NODE_EXPORTER_BIN, else
// prometheus-node-exporter on PATH (Debian's name), else node_exporter.
func Bin() (string, error) {
	if b := os.Getenv("MONGOBENCH_NODE_EXPORTER_BIN"); b != "" {
		return b, nil
	}
	for _, name := range []string{"prometheus-node-exporter", "node_exporter"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no node exporter: install Debian's prometheus-node-exporter ('make setup' does) or set MONGOBENCH_NODE_EXPORTER_BIN")
}

// Exporter is a running node exporter.
type Exporter struct {
	URL string // its /metrics page
	cmd *exec.Cmd
}

// Start starts a node exporter with the collectors mongobench reads (CPU,
// disk, file systems, memory, swap from vmstat) on a free loopback port, waits until it
// answers, and stops it when the test ends.
func Start(t testing.TB) *Exporter {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a node exporter; -short skips it")
	}
	bin, err := Bin()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // the exporter listens on it next
	cmd := exec.Command(bin, "--web.listen-address="+addr, "--collector.disable-defaults",
		"--collector.cpu", "--collector.diskstats", "--collector.filesystem", "--collector.meminfo", "--collector.vmstat")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	e := &Exporter{URL: "http://" + addr + "/metrics", cmd: cmd}
	t.Cleanup(e.Stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(e.URL)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("node exporter at %s did not answer within 10s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the exporter (a test may stop it early, mid-run).
func (e *Exporter) Stop() {
	if e.cmd.Process == nil || e.cmd.ProcessState != nil {
		return
	}
	_ = e.cmd.Process.Kill() // a test exporter has nothing to save
	_ = e.cmd.Wait()
}
