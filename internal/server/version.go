package server

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Version is the version the binary reports with --version, which prints
// it and exits without starting a server: the last word of the first
// line, such as "0.5.3-beta.193" ("secantusd-rs 0.5.3-beta.193") or
// "v8.0.4" ("db version v8.0.4").
func (b Binary) Version(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, b.Path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", b.Path, err)
	}
	line, _, _ := bytes.Cut(out, []byte("\n"))
	words := strings.Fields(string(line))
	if len(words) == 0 {
		return "", fmt.Errorf("%s --version: printed no version", b.Path)
	}
	return words[len(words)-1], nil
}
