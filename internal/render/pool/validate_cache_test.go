package pool

import (
	"reflect"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The strict-check cache answers for a policy equal by samePolicy, so a
// field samePolicy does not compare would let one pool's answer stand for
// another's. Every field of PoolPolicy, changed alone, must make the
// policies differ; a field added to PoolPolicy fails here until samePolicy
// compares it.
func TestSamePolicy_everyFieldCounts(t *testing.T) {
	base := spec.PoolPolicy{Name: "a", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1,
		Labels: map[string]string{"k": "v"}, Taints: []spec.Taint{{Key: "k", Value: "v", Effect: spec.TaintNoSchedule}}}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		changed := copyPolicy(base)
		field := reflect.ValueOf(&changed).Elem().Field(i)
		switch field.Interface().(type) {
		case string:
			field.SetString(field.String() + "x")
		case int64:
			field.SetInt(field.Int() + 1)
		case bool:
			field.SetBool(!field.Bool())
		case map[string]string:
			field.Set(reflect.ValueOf(map[string]string{"k": "other"}))
		case []spec.Taint:
			field.Set(reflect.ValueOf([]spec.Taint{{Key: "other", Effect: spec.TaintNoSchedule}}))
		case *bool:
			no := false
			field.Set(reflect.ValueOf(&no))
		case *spec.PoolTopology:
			field.Set(reflect.ValueOf(&spec.PoolTopology{Levels: []string{"block"}}))
		case *spec.PoolGPUNetwork:
			field.Set(reflect.ValueOf(&spec.PoolGPUNetwork{RDMAResource: "rdma/ib"}))
		case kubever.Version:
			field.Set(reflect.ValueOf(kubever.Version{V: kubever.Floor, Source: kubever.FromCluster}))
		default:
			t.Fatalf("PoolPolicy.%s has type %s: teach samePolicy and this test to compare it", name, field.Type())
		}
		if samePolicy(base, changed) {
			t.Errorf("samePolicy ignores PoolPolicy.%s: the cache would answer for another policy", name)
		}
	}
}
