package live

import "testing"

func TestExposed(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9464": false, "localhost:0": false, "[::1]:80": false, "127.1.2.3:1": false,
		"0.0.0.0:9464": true, ":0": true, ":9464": true, "[::]:80": true, "192.168.1.2:80": true, "example.com:80": true,
	} {
		if got := Exposed(addr); got != want {
			t.Errorf("Exposed(%q) = %v, want %v", addr, got, want)
		}
	}
	if w := ExposedWarning("--metrics-addr", ":0", "the run's live figures"); w != "warning: --metrics-addr :0: other machines can read the run's live figures (no authentication)" {
		t.Errorf("got %q", w)
	}
	if w := ExposedWarning("--listen", "127.0.0.1:8080", "x"); w != "" {
		t.Errorf("loopback: got %q", w)
	}
}
