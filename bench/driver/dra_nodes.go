package main

// The DRA subject's nodes (issue #32): kwok clones of the local cluster's
// dra-h100 fixture node (scripts/localcluster/fixtures/dra.yaml), each with
// the one ResourceSlice NVIDIA's DRA driver would publish for it, written
// here in Go as scripts/localcluster/dra.sh writes it for the fixtures
// (docs/design/dra.md §8 holds the facts each value follows).

import (
	"context"
	"crypto/md5" //nolint:gosec // a stable UUID, as dra.sh makes it with md5sum; not a security use
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

const (
	// draDriver is NVIDIA's DRA driver; the local cluster's DeviceClass
	// gpu.nvidia.com (cluster-up) selects its devices of type gpu.
	draDriver = "gpu.nvidia.com"
	// draFixtureFile and draFixtureProduct pick the node the bench clones:
	// the whole-GPU H100 pool (the MIG pool publishes no gpu devices).
	draFixtureFile    = "dra.yaml"
	draFixtureProduct = "NVIDIA-H100-80GB-HBM3"
	// draNodeLabel marks the run's DRA nodes (value: the run id), so they can
	// be listed apart from its device-plugin nodes.
	draNodeLabel = "gpuform.io/bench-dra"
	// fixtureLabelPrefix is the fixtures' own bookkeeping: dra.sh publishes
	// slices for every node labelled fixtures.gpuform.io/dra-driver, so a
	// clone keeping it would get a second pool from a concurrent cluster.sh.
	fixtureLabelPrefix = "fixtures.gpuform.io/"
)

// draNVMLNames is NVML's device name (the driver's productName) for GFD's
// nvidia.com/gpu.product, as dra.sh's dra_nvml_name.
var draNVMLNames = map[string]string{
	"NVIDIA-H100-80GB-HBM3": "NVIDIA H100 80GB HBM3",
	"NVIDIA-H200":           "NVIDIA H200",
	"NVIDIA-A100-SXM4-40GB": "NVIDIA A100-SXM4-40GB",
}

// draArchitectures is go-nvlib's architecture for GFD's nvidia.com/gpu.family.
var draArchitectures = map[string]string{
	"ampere": "Ampere", "hopper": "Hopper", "ada-lovelace": "Ada Lovelace", "blackwell": "Blackwell",
}

// The PCI layout of a node's GPUs by minor (dra.sh's DRA_PCI_BUS and
// DRA_PCI_ROOT): illustrative, the same on every DRA node.
var (
	draPCIBus  = []string{"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"}
	draPCIRoot = []string{"15", "27", "37", "5a", "97", "a8", "b7", "d8"}
)

// draFixtureNode is the fixture node the DRA nodes are cloned from.
func draFixtureNode(fixturesDir string) (*corev1.Node, error) {
	path := filepath.Join(fixturesDir, draFixtureFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	nodes, err := parseFixtureNodes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range nodes {
		l := nodes[i].Labels
		if l["nvidia.com/gpu.product"] == draFixtureProduct && l["nvidia.com/mig.config"] == "" &&
			l[fixtureLabelPrefix+"dra-driver"] == draDriver {
			return &nodes[i], nil
		}
	}
	return nil, fmt.Errorf("%s: no %s node of the DRA driver %s", draFixtureFile, draFixtureProduct, draDriver)
}

// draNode is the fixture as the run's node name: its labels (GFD's, which
// the workload's affinity selects, and device-plugin "false"), taints
// (nvidia.com/gpu, which the workload tolerates), capacity and nodeInfo,
// without the fixtures' own labels, plus the run's label and taint as on
// every bench node.
func draNode(fixture *corev1.Node, name, id string) *corev1.Node {
	labels := map[string]string{}
	for k, v := range fixture.Labels {
		if !strings.HasPrefix(k, fixtureLabelPrefix) {
			labels[k] = v
		}
	}
	labels["kubernetes.io/hostname"], labels[spec.LabelKey], labels[draNodeLabel] = name, id, id
	taints := append(clearTaints(fixture.Spec.Taints),
		corev1.Taint{Key: spec.LabelKey, Value: id, Effect: corev1.TaintEffectNoSchedule})
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Capacity: fixture.Status.Capacity, Allocatable: fixture.Status.Allocatable,
			NodeInfo: fixture.Status.NodeInfo},
	}
}

// clearTaints copies taints without the time the API server would set.
func clearTaints(in []corev1.Taint) []corev1.Taint {
	out := make([]corev1.Taint, len(in))
	for i, t := range in {
		out[i] = corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	return out
}

// draSlice is the node's one ResourceSlice as dra.sh's dra_slice renders it
// for a whole-GPU node: one pool named after the node, devices gpu-0 …
// gpu-<count-1>, the Node as controlling owner (the garbage collector
// deletes it with the node), and the run's label, so cleanup finds it.
func draSlice(node *corev1.Node, id string) (*resourcev1.ResourceSlice, error) {
	l := node.Labels
	product, ok := draNVMLNames[l["nvidia.com/gpu.product"]]
	if !ok {
		return nil, fmt.Errorf("%s: no NVML name for %q", node.Name, l["nvidia.com/gpu.product"])
	}
	arch, ok := draArchitectures[l["nvidia.com/gpu.family"]]
	if !ok {
		return nil, fmt.Errorf("%s: unknown GPU family %q", node.Name, l["nvidia.com/gpu.family"])
	}
	count, err := strconv.Atoi(l["nvidia.com/gpu.count"])
	if err != nil || count < 1 || count > len(draPCIBus) {
		return nil, fmt.Errorf("%s: nvidia.com/gpu.count %q", node.Name, l["nvidia.com/gpu.count"])
	}
	memory, err := resource.ParseQuantity(l["nvidia.com/gpu.memory"] + "Mi")
	if err != nil {
		return nil, fmt.Errorf("%s: nvidia.com/gpu.memory: %w", node.Name, err)
	}
	common := map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
		"productName":           {StringValue: ptr.To(product)},
		"brand":                 {StringValue: ptr.To("Nvidia")},
		"architecture":          {StringValue: ptr.To(arch)},
		"cudaComputeCapability": {VersionValue: ptr.To(draVersion(l["nvidia.com/gpu.compute.major"] + "." + l["nvidia.com/gpu.compute.minor"]))},
		"driverVersion":         {VersionValue: ptr.To(draVersion(l["nvidia.com/cuda.driver-version.full"]))},
		"cudaDriverVersion":     {VersionValue: ptr.To(draVersion(l["nvidia.com/cuda.runtime-version.full"]))},
	}
	devices := make([]resourcev1.Device, count)
	for minor := range devices {
		devices[minor] = draGPUDevice(node.Name, minor, common, memory)
	}
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:   "00000-" + draDriver + "-" + node.Name,
			Labels: map[string]string{spec.LabelKey: id},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
				Controller: ptr.To(true)}},
		},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   draDriver,
			NodeName: ptr.To(node.Name),
			Pool:     resourcev1.ResourcePool{Name: node.Name, Generation: 1, ResourceSliceCount: 1},
			Devices:  devices,
		},
	}, nil
}

// draGPUDevice is one whole GPU (dra.sh's dra_gpu_device).
func draGPUDevice(node string, minor int, common map[resourcev1.QualifiedName]resourcev1.DeviceAttribute,
	memory resource.Quantity) resourcev1.Device {
	attrs := make(map[resourcev1.QualifiedName]resourcev1.DeviceAttribute, len(common)+6)
	for k, v := range common {
		attrs[k] = v
	}
	attrs["type"] = resourcev1.DeviceAttribute{StringValue: ptr.To("gpu")}
	attrs["uuid"] = resourcev1.DeviceAttribute{StringValue: ptr.To(draUUID("GPU", fmt.Sprintf("%s/%d", node, minor)))}
	attrs["resource.kubernetes.io/pciBusID"] = resourcev1.DeviceAttribute{StringValue: ptr.To("0000:" + draPCIBus[minor] + ":00.0")}
	attrs["resource.kubernetes.io/pcieRoot"] = resourcev1.DeviceAttribute{StringValue: ptr.To("pci0000:" + draPCIRoot[minor])}
	attrs["resource.kubernetes.io/numaNode"] = resourcev1.DeviceAttribute{IntValue: ptr.To(int64(minor / 4))}
	return resourcev1.Device{
		Name:       fmt.Sprintf("gpu-%d", minor),
		Attributes: attrs,
		Capacity:   map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: memory}},
	}
}

// draVersion is v as the driver publishes a version (dra.sh's dra_version:
// missing parts are 0 and leading zeros go, so 580.159.04 is 580.159.4).
func draVersion(v string) string {
	parts := strings.SplitN(v, ".", 3)
	nums := [3]int{}
	for i, p := range parts {
		nums[i], _ = strconv.Atoi(p)
	}
	return fmt.Sprintf("%d.%d.%d", nums[0], nums[1], nums[2])
}

// draUUID is dra.sh's dra_uuid: a stable UUID in NVML's form from md5(key).
func draUUID(prefix, key string) string {
	sum := md5.Sum([]byte(key)) //nolint:gosec // see the import
	h := hex.EncodeToString(sum[:])
	return fmt.Sprintf("%s-%s-%s-%s-%s-%s", prefix, h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])
}

// draNodeName is the i-th DRA node of a run.
func draNodeName(id string, i int) string { return fmt.Sprintf("bench-%s-dra-%d", id, i) }

// createDRANodes creates count DRA nodes cloned from the fixture, waits
// until they are Ready, then publishes each node's slice (the slice names
// the node's UID as its owner, so the node comes first).
func createDRANodes(ctx context.Context, cs kubernetes.Interface, id, fixturesDir string, count int) error {
	fixture, err := draFixtureNode(fixturesDir)
	if err != nil {
		return err
	}
	created := make([]*corev1.Node, count)
	err = spec.InParallel(ctx, count, 10, func(i int) error {
		n, err := cs.CoreV1().Nodes().Create(ctx, draNode(fixture, draNodeName(id, i), id), metav1.CreateOptions{})
		created[i] = n
		return err
	})
	if err != nil {
		return fmt.Errorf("creating DRA nodes: %w", err)
	}
	if err := waitNodesReady(ctx, cs, draNodeLabel+"="+id, count); err != nil {
		return err
	}
	return spec.InParallel(ctx, count, 10, func(i int) error {
		slice, err := draSlice(created[i], id)
		if err != nil {
			return err
		}
		_, err = cs.ResourceV1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{})
		return err
	})
}

// deleteDRASlices deletes the run's slices. Deleting the nodes would do it
// through the garbage collector, but not before the next run's nodes exist
// if the collector is slow, and a slice outliving its node still shows in
// every claim allocation's candidate list.
func deleteDRASlices(ctx context.Context, cs kubernetes.Interface, id string) (int, error) {
	sel := metav1.ListOptions{LabelSelector: selector(id)}
	list, err := cs.ResourceV1().ResourceSlices().List(ctx, sel)
	if err != nil || len(list.Items) == 0 {
		return 0, err
	}
	return len(list.Items), cs.ResourceV1().ResourceSlices().DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
}
