// Package rendertest holds what the tests of the render packages share:
// a valid sample workload, diagnostic assertions, Golden (which every
// golden suite calls to compare or, with -update, rewrite its files), the
// -write-fuzz-seeds flag of fuzz seeds, and the local cluster's fake nodes
// (scripts/localcluster/fixtures). Only tests import it.
package rendertest
