package wire

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
)

// Error is a command the server refused (ok:0), or one whose writes
// failed (writeErrors) or whose write concern failed (writeConcernError).
type Error struct {
	Code     int32
	CodeName string
	Message  string
	Labels   []string
	// WriteErrors are the per-document failures of a write command.
	WriteErrors []WriteError
	// WriteConcern is set when the error is a writeConcernError.
	WriteConcern bool
}

// WriteError is one failed document of a write command.
type WriteError struct {
	Index   int32
	Code    int32
	Message string
}

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case len(e.WriteErrors) > 0:
		w := e.WriteErrors[0]
		fmt.Fprintf(&b, "write error (%d): %s", w.Code, w.Message)
		if n := len(e.WriteErrors); n > 1 {
			fmt.Fprintf(&b, " (and %d more)", n-1)
		}
	case e.WriteConcern:
		fmt.Fprintf(&b, "write concern error (%s, %d): %s", e.CodeName, e.Code, e.Message)
	default:
		fmt.Fprintf(&b, "server error (%s, %d): %s", e.CodeName, e.Code, e.Message)
	}
	return b.String()
}

// ErrorCodes returns every code the error carries: the command's and each
// write error's.
func (e *Error) ErrorCodes() []int {
	var codes []int
	if e.Code != 0 {
		codes = append(codes, int(e.Code))
	}
	for _, w := range e.WriteErrors {
		codes = append(codes, int(w.Code))
	}
	return codes
}

// HasErrorCode reports whether the error carries code.
func (e *Error) HasErrorCode(code int) bool { return slices.Contains(e.ErrorCodes(), code) }

// HasErrorLabel reports whether the server labelled the error.
func (e *Error) HasErrorLabel(label string) bool { return slices.Contains(e.Labels, label) }

// HasErrorCodeWithMessage reports whether the error carries code with a
// message containing msg.
func (e *Error) HasErrorCodeWithMessage(code int, msg string) bool {
	if int(e.Code) == code && strings.Contains(e.Message, msg) {
		return true
	}
	for _, w := range e.WriteErrors {
		if int(w.Code) == code && strings.Contains(w.Message, msg) {
			return true
		}
	}
	return false
}

// IsDuplicateKey reports whether the error is a duplicate key error, by
// the codes the official driver uses.
func (e *Error) IsDuplicateKey() bool {
	return e.HasErrorCode(11000) || e.HasErrorCode(11001) || e.HasErrorCode(12582) ||
		e.HasErrorCodeWithMessage(16460, " E11000 ")
}

// NetworkError is a failure to dial, write or read the connection; the
// connection is closed and the next command reconnects.
type NetworkError struct {
	Op  string // "dial", "write", "read"
	Err error
}

func (e *NetworkError) Error() string { return "wire " + e.Op + ": " + e.Err.Error() }
func (e *NetworkError) Unwrap() error { return e.Err }

// Timeout reports whether the network error was a timeout.
func (e *NetworkError) Timeout() bool {
	var ne net.Error
	return errors.As(e.Err, &ne) && ne.Timeout()
}

// retryable reports whether a command that failed with err may be sent
// again: a network error, or a server error labelled RetryableWriteError
// or of a code the retryable-writes specification lists.
func retryable(err error, write bool) bool {
	var ne *NetworkError
	if errors.As(err, &ne) {
		return true
	}
	var se *Error
	if !errors.As(err, &se) {
		return false
	}
	if write {
		return se.HasErrorLabel("RetryableWriteError")
	}
	switch se.Code {
	case 11600, 11602, 10107, 13435, 13436, 189, 91, 7, 6, 89, 9001, 262:
		return true
	}
	return false
}
