//go:build tools

// Package etcdbuild only pins the etcd server the local test cluster builds;
// nothing imports it.
package etcdbuild

import _ "go.etcd.io/etcd/server/v3"
