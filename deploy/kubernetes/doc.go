// Package kubernetes holds the manifests that run a mongobench run group
// as a Kubernetes Indexed Job, and the tests that decode them strictly
// into the Kubernetes API's types and build the image's static binary.
package kubernetes
