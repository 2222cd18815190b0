// Package catalog is what the provider knows about GPU models, whatever the
// cloud: every name the ecosystem uses for a model (GKE's accelerator, the
// VM and instance types, GPU Feature Discovery's product names, Flyte's
// device), its memory, its MIG profiles and how they fit on one GPU
// (MIGLayoutMisfit), the machine-shape helpers the clouds describe their
// machines with, and the sizing presets. It decides no placement: which
// models a cloud sells, and on which machines, is the clouds package's.
//
// Sources for every fact are in docs/design/catalog.md.
package catalog
