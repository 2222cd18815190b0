// Package catalog is what the provider knows about GPU models, whatever the
// cloud: every name the clouds and GPU Feature Discovery use for a model
// (GKE's accelerator, the VM and instance types, GFD's product names), its
// memory, its MIG profiles and how they fit on one GPU (MIGLayoutMisfit),
// the machine-shape helpers the clouds describe their machines with, and the
// sizing presets. It decides no placement: which models a cloud sells, and
// on which machines, is the clouds package's. Names a chart gives a model
// (Flyte's devices) live in that chart's package (values/flyte).
//
// Sources for every fact are in docs/design/catalog.md.
package catalog
