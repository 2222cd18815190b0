package clustercapacity

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// WarnUnadvertisedNetwork checks, before the pods are created, that the
// pool's nodes advertise what the pool's GPU network gives the pods (EFA
// devices, huge pages, an RDMA resource): the provider renders the request
// from the machine type, but a device plugin of the cluster must hand the
// devices out. Nodes of the pool without them mean pods that stay Pending,
// so this says what to install. The nodes listed by node selector are
// narrowed to those the pods may land on (affinity, taints): another node
// group of the same machine may have the devices. With no node of the pool yet (a node group
// scaling from zero) there is nothing to check; a failed read only skips
// the check, since the wait reports whatever the scheduler says.
// whose names the pods in the message ("The pods", "The pods of worker
// group \"train\"").
func WarnUnadvertisedNetwork(ctx context.Context, client *kube.Client, rendered *workload.Rendered, whose string, diags *diag.Diagnostics) {
	if rendered.Network == nil || len(rendered.Network.Resources) == 0 {
		return
	}
	nodes, err := client.ListNodes(ctx, labels.SelectorFromSet(rendered.NodeSelector).String())
	if err != nil {
		return
	}
	missing, poolNodes := rendered.UnadvertisedNetwork(nodes)
	if len(missing) == 0 {
		return
	}
	diags.AddWarning("The pool's nodes do not advertise its GPU network", fmt.Sprintf(whose+" ask for %s (the pool's "+
		"GPU network), but none of the %d node(s) they may land on (the pool's labels, taints they tolerate) has %s allocatable, so the scheduler will "+
		"place the pods on none of them. They get it from %s. Install that, or turn the network off on the pool "+
		"(gpu_network { enabled = false }) to run without it.", DescribeNetworkRequest(rendered.Network.Resources),
		poolNodes, joinNames(missing), rendered.Network.Advertiser))
}

// DescribeNetworkRequest lists a pod's network resources, "name: quantity".
func DescribeNetworkRequest(resources corev1.ResourceList) string {
	parts := make([]string, 0, len(resources))
	for _, name := range slices.Sorted(maps.Keys(resources)) {
		q := resources[name]
		parts = append(parts, fmt.Sprintf("%s: %s", name, q.String()))
	}
	return strings.Join(parts, ", ")
}

func joinNames(names []corev1.ResourceName) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return strings.Join(parts, " or ")
}
