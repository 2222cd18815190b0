package nodepoolpolicy

import (
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
)

// The pool's machine type and GPU network (issue #42,
// docs/design/gpu-networks.md): machine_type and the gpu_network block in;
// the cloud shapes' network fields out. The machine types and networks of
// each cloud are in that cloud's file under internal/render/clouds.

// machineTypeAttribute is machine_type. Its validator takes every machine
// type a pool cloud names (clouds.AllPoolMachineTypes, the list render
// narrows to the pool's model and GPU count at plan time).
func machineTypeAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Machine type of the nodes: one of the cloud's machine types with `gpus_per_node` GPUs of " +
			"`accelerator` (e.g. `a3-megagpu-8g` for 8 x `h100-80gb` on `gke`, `p5en.48xlarge` for 8 x `h200` on `eks`). " +
			"Defaults to the first the cloud lists (on `gke` H100 80GB: `a3-highgpu-8g`; an `eks` node group then lists " +
			"every instance type with that count). It decides the pool's GPU network (`gpu_network`) and the machine " +
			"type, VM size or instance types of the cloud shapes; unknown on `generic`, where it is refused.",
		Optional:   true,
		Validators: []validator.String{tfconv.OneOfSuggesting(clouds.AllPoolMachineTypes(), clouds.Suggest)},
	}
}

// resourceName is an extended resource name: a domain-prefixed name such as
// rdma/ib or nvidia.com/hostdev.
var resourceName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)

func gpuNetworkBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "The machines' GPU-to-GPU network, which workloads of several pods on the pool get without " +
			"writing it: EFA on `eks` (`vpc.amazonaws.com/efa` and huge pages), GPUDirect-TCPX, -TCPXO or RDMA on `gke` " +
			"(network interface annotations, the receive daemon as a native sidecar), InfiniBand on `aks` (the Network " +
			"Operator's RDMA resource and `IPC_LOCK`), an RDMA device plugin on `generic`. Without the block the pool " +
			"takes the machine type's network, if it has one (kinds: " + tfconv.MarkdownList(clouds.NetworkKindNames()) +
			"). The cloud shapes carry what the nodes need (`eks.efa_interfaces`, `gke.additional_node_networks`, " +
			"`aks.infiniband`).",
		Attributes: map[string]schema.Attribute{
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "`false` turns the network off: workloads get none of it (a multi-node job on the pool " +
					"is warned). `true` asserts the machine type has one (an error where it has none). Defaults to on where " +
					"the machine type has a network.",
				Optional: true,
			},
			"rdma_resource": schema.StringAttribute{
				MarkdownDescription: "`aks` and `generic`: the extended resource the cluster's RDMA device plugin advertises, " +
					"as the NVIDIA Network Operator's `NicClusterPolicy` names it. Defaults to `" + clouds.AKSDefaultRDMAResource +
					"` on `aks` (the SR-IOV device plugin of Azure's configuration); required on `generic`, e.g. " +
					"`rdma/rdma_shared_device_a`. Refused on other clouds.",
				Optional: true,
				Validators: []validator.String{stringvalidator.RegexMatches(resourceName,
					"must be an extended resource name such as "+strings.Join([]string{"`rdma/ib`", "`nvidia.com/hostdev`"}, " or "))},
			},
			"rdma_devices": schema.Int64Attribute{
				MarkdownDescription: "`aks` and `generic`: how many of `rdma_resource` a pod asking every GPU of a node requests: " +
					"the NIC count (one per NIC, the SR-IOV device plugin; the default on `aks`) or 1 (the shared device plugin, " +
					"whose one unit opens every NIC; the default on `generic`).",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
		},
	}
}
