// Package resourcekit is what every resource and data source of the provider
// shares: the data Configure hands them (the cluster client and default_cloud),
// the one rule for a resource's cloud (PickCloud), render findings as Terraform
// diagnostics, the `manifests` attribute and its state upgrade, and the step
// that removes the objects an apply no longer renders (Prune).
package resourcekit
