// Package numaflow generates the GPU part of a Numaflow Pipeline vertex or
// MonoVertex (container resources, node selector, affinity, tolerations,
// DRA claims), as a fragment or a whole manifest. CRD facts are in
// docs/design/numaflow.md.
package numaflow
