package workload

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/wire"
)

// Server error codes and labels that name a class.
const (
	codeWriteConflict  = 112
	codeDuplicateKey   = 11000
	codeMaxTimeExpired = 50
	codeRateLimited    = 462 // IngressRequestRateLimitExceeded
	labelOverloaded    = "SystemOverloadedError"
)

// Classify maps a driver or wire-client error to the engine's error
// classes.
func Classify(err error) engine.Class {
	if c, ok := classifyWire(err); ok {
		return c
	}
	var se mongo.ServerError
	isServer := errors.As(err, &se)
	switch {
	case hasCode(err, codeWriteConflict):
		return engine.WriteConflict
	case mongo.IsDuplicateKeyError(err), hasCode(err, codeDuplicateKey): // the second: a client-level bulkWrite's write errors
		return engine.DuplicateKey
	case isServer && (se.HasErrorLabel(labelOverloaded) || se.HasErrorCode(codeRateLimited)):
		return engine.Overload
	case mongo.IsTimeout(err), errors.Is(err, context.DeadlineExceeded),
		isServer && se.HasErrorCode(codeMaxTimeExpired):
		return engine.Timeout
	case mongo.IsNetworkError(err):
		return engine.Network
	}
	return engine.Other
}

var _ engine.Classifier = Classify

// hasCode reports whether err carries the server error code anywhere,
// including the per-write errors of a client-level bulkWrite (whose
// exception reports codes but is not a mongo.ServerError).
func hasCode(err error, code int) bool {
	var ec interface{ ErrorCodes() []int }
	if !errors.As(err, &ec) {
		return false
	}
	for _, c := range ec.ErrorCodes() {
		if c == code {
			return true
		}
	}
	return false
}

// classifyWire maps the wire client's errors as Classify maps the
// driver's; ok is false for other errors.
func classifyWire(err error) (c engine.Class, ok bool) {
	var we *wire.Error
	var ne *wire.NetworkError
	switch {
	case errors.As(err, &we):
		switch {
		case we.HasErrorCode(codeWriteConflict):
			return engine.WriteConflict, true
		case we.IsDuplicateKey():
			return engine.DuplicateKey, true
		case we.HasErrorLabel(labelOverloaded) || we.HasErrorCode(codeRateLimited):
			return engine.Overload, true
		case we.HasErrorCode(codeMaxTimeExpired):
			return engine.Timeout, true
		}
		return engine.Other, true
	case errors.Is(err, context.DeadlineExceeded):
		return engine.Timeout, true
	case errors.As(err, &ne):
		if ne.Timeout() {
			return engine.Timeout, true
		}
		return engine.Network, true
	}
	return 0, false
}
