// Package nvidia generates the values of the NVIDIA GPU Operator and the
// standalone device plugin for the cloud and the node pools: driver and
// toolkit switches, GPU Feature Discovery, device plugin configs per pool,
// custom mig-parted layouts, and operand tolerations. Chart facts are in
// docs/design/nvidia.md.
package nvidia
