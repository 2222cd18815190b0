// Package rendertest holds what the tests of the render packages share:
// a valid sample workload, diagnostic assertions, the -update and
// -write-fuzz-seeds flags of golden files and fuzz seeds, and the local
// cluster's fake nodes (scripts/localcluster/fixtures). Only tests import it.
package rendertest
