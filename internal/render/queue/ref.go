package queue

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Ref is what a gpu_workload needs to know of a gpu_queue at plan time: its
// LocalQueue name and namespaces, and per flavor the pool's model, GPU
// resource and quota. gpu_queue's ref attribute is this object, so a
// workload given gpu_queue.<name>.ref is checked against the quota without
// reading state or the cluster.
type Ref struct {
	Name       string      `json:"name"`
	LocalQueue string      `json:"local_queue"`
	Namespaces []string    `json:"namespaces,omitempty"`
	Cohort     string      `json:"cohort,omitempty"`
	Flavors    []FlavorRef `json:"flavors"`
}

// FlavorRef is one pool's share of the queue.
type FlavorRef struct {
	Name        string `json:"name"`
	Cloud       string `json:"cloud"`
	Accelerator string `json:"accelerator"`
	Partition   string `json:"partition,omitempty"`
	Resource    string `json:"resource"`
	Unit        Unit   `json:"unit"`
	Quota       int64  `json:"quota"`
	// BorrowingLimit is nil for "no limit" (in a cohort) and absent borrowing.
	BorrowingLimit *int64 `json:"borrowing_limit,omitempty"`
	CPU            string `json:"cpu"`
	Memory         string `json:"memory"`
	// CPUBorrowingLimit and MemoryBorrowingLimit are "" for no limit.
	CPUBorrowingLimit    string `json:"cpu_borrowing_limit,omitempty"`
	MemoryBorrowingLimit string `json:"memory_borrowing_limit,omitempty"`
	// NodeLabels are the ResourceFlavor's: a workload's placement is
	// matched against them the way Kueue does (kueue_match.go).
	NodeLabels map[string]string `json:"node_labels,omitempty"`
	// PoolNodeLabels are the labels the pool's nodes carry with one known
	// value, and LabelChoices those with one of several: what a workload
	// admitted through the flavor must be able to run on.
	PoolNodeLabels map[string]string   `json:"pool_node_labels,omitempty"`
	LabelChoices   map[string][]string `json:"label_choices,omitempty"`
	// TopologyLevels are the pool's topology levels when its flavor has a
	// Kueue Topology: a workload's topology request is checked against them.
	TopologyLevels []spec.TopologyLevel `json:"topology_levels,omitempty"`
}

// nodeVariants are the label sets a node of the flavor's pool may have.
func (f FlavorRef) nodeVariants() []map[string]string {
	return labelVariants(f.PoolNodeLabels, f.LabelChoices)
}

// ID is gpu_queue's id: the ClusterQueue's name.
func ID(r Ref) string { return r.Name }

func refOf(q spec.Queue, flavors []flavor) Ref {
	r := Ref{Name: q.Name, LocalQueue: LocalQueueName(q), Namespaces: q.Namespaces, Cohort: q.Cohort}
	for _, f := range flavors {
		r.Flavors = append(r.Flavors, FlavorRef{
			Name: f.name(), Cloud: f.spec.Pool.Cloud, Accelerator: f.spec.Pool.Accelerator, Partition: f.spec.Pool.Partition,
			Resource: f.resourceName(), Unit: f.unit, Quota: f.quota, BorrowingLimit: f.spec.BorrowingLimit,
			CPU: f.cpu.String(), Memory: f.memory.String(), NodeLabels: f.labels,
			CPUBorrowingLimit: quantityString(f.cpuBorrowing), MemoryBorrowingLimit: quantityString(f.memoryBorrowing),
			PoolNodeLabels: f.nodeLabels(), LabelChoices: f.pool.LabelChoices, TopologyLevels: f.pool.TopologyLevels,
		})
	}
	return r
}

// The rest of this file is the legacy id format of versions before 0.1.0,
// which carried the Ref in gpu_queue's id (docs/design/formats.md): state
// upgrades still read it.

// refIDVersion is bumped when Ref changes incompatibly.
const refIDVersion = 1

// maxRefIDLength bounds DecodeID's work on hostile input.
const maxRefIDLength = 64 << 10

type refPayload struct {
	Version int `json:"v"`
	Ref
}

func idPrefix(name string) string { return "kueue/" + name }

// IsID reports whether a workload's queue value is a legacy gpu_queue id
// rather than the name of a queue managed elsewhere.
func IsID(value string) bool {
	return strings.HasPrefix(value, "kueue/") && strings.Contains(value, ":")
}

// DecodeID parses a legacy id.
func DecodeID(id string) (Ref, error) {
	if len(id) > maxRefIDLength {
		return Ref{}, fmt.Errorf("queue id is %d bytes, longer than any gpu_queue produces", len(id))
	}
	i := strings.LastIndexByte(id, ':')
	if i < 0 || !strings.HasPrefix(id, "kueue/") {
		return Ref{}, errors.New("not a gpu_queue id: expected kueue/<name>:<payload>")
	}
	raw, err := base64.RawURLEncoding.DecodeString(id[i+1:])
	if err != nil {
		return Ref{}, errors.New("queue id payload is not unpadded base64url; copy the id attribute unchanged")
	}
	var payload refPayload
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&payload); err != nil || dec.More() {
		return Ref{}, errors.New("queue id payload is not a gpu_queue reference; copy the id attribute unchanged")
	}
	if payload.Version != refIDVersion {
		return Ref{}, fmt.Errorf("queue id version %d is not supported by this provider version (it reads version %d)", payload.Version, refIDVersion)
	}
	if id[:i] != idPrefix(payload.Name) {
		return Ref{}, fmt.Errorf("queue id prefix %q does not match its payload (%q): the id was edited; copy the id attribute unchanged", id[:i], idPrefix(payload.Name))
	}
	return payload.Ref, nil
}

func quantityString(q *resource.Quantity) string {
	if q == nil {
		return ""
	}
	return q.String()
}
