package workload

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/load"
)

// Server error codes and labels that name a class.
const (
	codeWriteConflict  = 112
	codeMaxTimeExpired = 50
	codeRateLimited    = 462 // IngressRequestRateLimitExceeded
	labelOverloaded    = "SystemOverloadedError"
)

// Classify maps a driver error to the engine's error classes.
func Classify(err error) load.Class {
	var se mongo.ServerError
	isServer := errors.As(err, &se)
	switch {
	case hasCode(err, codeWriteConflict):
		return load.WriteConflict
	case mongo.IsDuplicateKeyError(err):
		return load.DuplicateKey
	case isServer && (se.HasErrorLabel(labelOverloaded) || se.HasErrorCode(codeRateLimited)):
		return load.Overload
	case mongo.IsTimeout(err), errors.Is(err, context.DeadlineExceeded),
		isServer && se.HasErrorCode(codeMaxTimeExpired):
		return load.Timeout
	case mongo.IsNetworkError(err):
		return load.Network
	}
	return load.Other
}

var _ load.Classifier = Classify

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
