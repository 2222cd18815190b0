package pool

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A pool's machine type and its GPU network (issue #42): the machine type
// decides the network (clouds.NetworkOf), which the cloud node-pool shapes
// and the pool's workloads then carry.

// checkMachineType resolves machine_type: one of the cloud's machine types
// with the pool's model and GPU count, or, unset, the first of them.
func checkMachineType(raw string, pi clouds.PoolIntent, diags *gpudiag.Diagnostics) (string, bool) {
	if raw == "" || !pi.Cloud.Known() || pi.Accel == nil || pi.GPUs == 0 {
		return clouds.ResolveMachine(pi.Cloud, pi.Accel, pi.GPUs, ""), false
	}
	allowed := clouds.PoolMachineTypes(pi.Cloud, pi.Accel, pi.GPUs)
	if len(allowed) == 0 {
		diags.AddError(gpudiag.At("machine_type"), "No machine types known here",
			"The provider knows no "+string(pi.Cloud.Name())+" machine types for "+pi.Accel.DisplayName+
				", so machine_type cannot be checked or used. Allowed: remove machine_type.")
		return "", false
	}
	if !slices.Contains(allowed, raw) {
		diags.AddError(gpudiag.At("machine_type"), "Machine type not in the pool",
			strconv.Quote(raw)+" is not a "+string(pi.Cloud.Name())+" machine type with "+strconv.FormatInt(pi.GPUs, 10)+
				" "+pi.Accel.DisplayName+" GPUs. Allowed: "+gpudiag.QuoteList(allowed)+", or leave machine_type unset for \""+
				allowed[0]+"\".")
		return allowed[0], false
	}
	return raw, true
}

// checkPoolNetwork checks the gpu_network block against the machine type
// and resolves the network the pool's workloads get.
func checkPoolNetwork(p spec.PoolPolicy, pi *clouds.PoolIntent, diags *gpudiag.Diagnostics) {
	clouds.CheckPoolNetwork(*pi, p.GPUNetwork, diags)
	if diags.HasError() {
		return
	}
	if n, state := clouds.NetworkOf(*pi, p.GPUNetwork); state == clouds.NetworkOn {
		if pi.DRA || pi.HasMIG() || pi.Sharing != "" {
			// The NICs follow whole GPUs; a partitioned or shared GPU has
			// no NIC share, so its pods get none.
			return
		}
		pi.Network = &n
	}
}
