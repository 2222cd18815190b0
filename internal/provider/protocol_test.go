package provider

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/protocol"
	"github.com/gpuform/terraform-provider-gpu/internal/protocol/protocoltest"
)

// servedByFramework lists the resources the protocol layer's direct path
// leaves to the framework on purpose, with the reason. Today it serves
// every resource: the benchmark's plan and refresh figures depend on it.
var servedByFramework = map[string]string{}

// Every resource is served by the direct path, or listed above: a schema
// change that takes one back to the framework (a nested plan modifier, a
// default of a new kind, an identity) fails here, not silently in the
// benchmark.
func TestProtocol_everyResourceIsServedDirectlyOrListed(t *testing.T) {
	ctx := context.Background()
	server, ok := protocol.NewServer(New("test"))().(*protocol.Server)
	if !ok {
		t.Fatal("protocol.NewServer does not return a *protocol.Server")
	}
	for _, newResource := range New("test")().Resources(ctx) {
		var meta resource.MetadataResponse
		newResource().Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "gpu"}, &meta)
		err := server.ServedDirectly(ctx, meta.TypeName)
		reason, listed := servedByFramework[meta.TypeName]
		switch {
		case err != nil && !listed:
			t.Errorf("%s is served by the framework again (%v): make the direct path serve it, or list it in "+
				"servedByFramework with the reason", meta.TypeName, err)
		case err == nil && listed:
			t.Errorf("%s is listed as served by the framework (%s) but the direct path serves it: remove the entry",
				meta.TypeName, reason)
		}
	}
}

// The direct path answers exactly as the framework for the plans a
// gpu_workload goes through: create (rendered only, whose plan is all
// known, and applied), no change, an in-place change, a rename
// (replacement), an unknown value, a missing cloud (an error), and destroy.
// The shadowed server plans each both ways and reports any difference.
func TestProtocol_directPathMatchesTheFrameworkOnTheWorkload(t *testing.T) {
	s := newPlanBench(t)
	ctx := context.Background()
	server, ok := s.server.(*protocol.Server)
	if !ok {
		t.Fatalf("the bench's server is a %T, not the protocol layer's", s.server)
	}
	if err := server.ServedDirectly(ctx, "gpu_workload"); err != nil {
		t.Fatalf("gpu_workload is not served directly: %v", err)
	}
	shadow := protocol.Shadowed(s.server)
	config := protocoltest.Decode(t, s.objType, s.config)
	state := protocoltest.Decode(t, s.objType, s.plannedState(t))
	null := tftypes.NewValue(s.objType, nil)
	unknownImage := protocoltest.WithValue(config, "image", tftypes.NewValue(tftypes.String, tftypes.UnknownValue))
	renamed := protocoltest.WithValue(config, "name", tftypes.NewValue(tftypes.String, "renamed"))
	newImage := protocoltest.WithValue(config, "image", tftypes.NewValue(tftypes.String, "registry.example/cuda:13"))
	noCloud := protocoltest.WithValue(protocoltest.WithValue(config, "cloud", tftypes.NewValue(tftypes.String, nil)), "node_pool", tftypes.NewValue(s.objType.AttributeTypes["node_pool"], nil))
	applied := protocoltest.WithValue(config, "apply", tftypes.NewValue(tftypes.Bool, nil))
	for _, c := range []struct {
		name                                string
		config, prior, proposed             tftypes.Value
		wantReplace, wantUnknown, wantError bool
	}{
		{name: "create, rendered only", config: config, prior: null, proposed: config},
		{name: "create, applied", config: applied, prior: null, proposed: applied, wantUnknown: true},
		{name: "no change", config: config, prior: state, proposed: protocoltest.ProposedNew(config, state)},
		{name: "new image", config: newImage, prior: state, proposed: protocoltest.ProposedNew(newImage, state)},
		{name: "renamed", config: renamed, prior: state, proposed: protocoltest.ProposedNew(renamed, state), wantReplace: true},
		{name: "unknown image", config: unknownImage, prior: null, proposed: unknownImage, wantUnknown: true},
		{name: "no cloud", config: noCloud, prior: null, proposed: noCloud, wantUnknown: true, wantError: true},
		{name: "destroy", config: null, prior: state, proposed: null},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, err := shadow.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: "gpu_workload", Config: protocoltest.DynamicValue(t, s.objType, c.config),
				PriorState: protocoltest.DynamicValue(t, s.objType, c.prior), ProposedNewState: protocoltest.DynamicValue(t, s.objType, c.proposed),
			})
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.IndexFunc(resp.Diagnostics, func(d *tfprotov6.Diagnostic) bool {
				return d.Summary == "The direct path disagrees with the framework"
			}); i >= 0 {
				t.Fatal(resp.Diagnostics[i].Detail)
			}
			planned := protocoltest.Decode(t, s.objType, resp.PlannedState)
			if c.wantReplace != (len(resp.RequiresReplace) > 0) {
				t.Errorf("requires replace = %v, want it %v", resp.RequiresReplace, c.wantReplace)
			}
			if !c.proposed.IsNull() && c.wantUnknown == planned.IsFullyKnown() {
				t.Errorf("planned state fully known = %v, want %v", planned.IsFullyKnown(), !c.wantUnknown)
			}
			if c.wantError != diagnosticsFail(resp.Diagnostics) {
				t.Errorf("diagnostics %v, want an error: %v", resp.Diagnostics, c.wantError)
			}
		})
	}
}

// The direct path (internal/protocol) keeps no private state: it serves no
// request that carries some (those go to the framework), and hands the
// resource no private state to write, so SetKey returns an error there. A
// resource may set private state only where that error reaches the user
// (its diagnostics appended), never silently: gpu_workload's import marks
// an adopted object (import is the framework's), and the apply that
// carries the mark clears it (the framework's too, since it carries it).
func TestResourcesNeverDropPrivateStateSilently(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, ".Private.SetKey(") && !strings.Contains(line, "Diagnostics.Append(") {
				t.Errorf("%s sets private state without reporting SetKey's diagnostics, which the direct path would "+
					"drop silently: %s", path, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
