// Package datagen makes the data workloads send: payload bytes generated
// once and sliced per document, and key choosers over a key range. It is
// pure and allocation-free on the hot path.
package datagen
