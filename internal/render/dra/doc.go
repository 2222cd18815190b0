// Package dra turns GPU intent into Dynamic Resource Allocation objects for
// NVIDIA's DRA driver, and checks hand-written device selectors the way the
// scheduler reads them:
//
//   - driver.go: what the driver publishes (its device classes, device
//     types, attribute and capacity names, the names it dropped), the one
//     source of the names every check allows.
//   - claim.go: Request (count, accelerators in order, MIG partition,
//     minimum memory, a shared PCIe root or NUMA node, or raw selectors) in,
//     Claim out: one request, exactly or firstAvailable, and its constraint.
//   - shapes.go: Claim.V1 and Claim.V1beta1, the two API shapes.
//   - selectors.go: raw CEL selectors compiled with Kubernetes' own DRA CEL
//     library (k8s.io/dynamic-resource-allocation/cel, the scheduler's), their
//     attribute names checked against driver.go, and each evaluated on the
//     devices the driver would publish for the requested model (devices.go):
//     a selector no such device passes contradicts the request.
//   - deviceclass.go: one DeviceClass per DRA pool, and the selector-free
//     claim naming it (what Kueue can count).
//
// Facts and their sources are in docs/design/dra.md. Nothing here panics
// on any input.
package dra
