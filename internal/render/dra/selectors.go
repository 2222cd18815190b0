package dra

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// selectorExample is the selector the findings show as an example.
const selectorExample = `device.attributes["` + Driver + `"].productName == "NVIDIA H100 80GB HBM3"`

// compileSelector compiles an expression the way the API server validates
// a new claim's selector: the environment for new expressions and the
// DRA library's compiler (k8s.io/kubernetes pkg/apis/resource/validation,
// validateCELSelector). The cost estimate is the API server's too.
func compileSelector(expression string) dracel.CompilationResult {
	envType := environment.NewExpressions
	return dracel.GetCompiler(dracel.Features{}).CompileCELExpression(expression, dracel.Options{EnvType: &envType})
}

// CheckSelectors checks raw selectors against what the claim asks for:
// each must compile as the API server compiles it, name only attributes
// and capacities the driver publishes, and let through at least one
// device the driver would publish for the target. Findings are at
// base + the selector's index. Empty selectors are skipped (unknown at
// plan time, or reported by the caller).
func CheckSelectors(base []any, selectors []string, t Target) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	devices := t.devices()
	for i, s := range selectors {
		if strings.TrimSpace(s) == "" {
			continue
		}
		path := append(slices.Clone(base), i)
		compiled, ok := checkSelectorCompiles(path, s, &diags)
		if !ok || !checkSelectorNames(path, compiled, t.deviceType(), &diags) {
			continue
		}
		checkSelectorMatches(path, compiled, devices, &diags)
	}
	return diags
}

// checkSelectorCompiles reports what the API server would refuse.
func checkSelectorCompiles(path []any, expression string, diags *gpudiag.Diagnostics) (dracel.CompilationResult, bool) {
	if len(expression) > resourcev1.CELSelectorExpressionMaxLength {
		diags.AddError(path, "Selector too long",
			"The selector is "+strconv.Itoa(len(expression))+" characters; the API server refuses more than "+
				strconv.Itoa(resourcev1.CELSelectorExpressionMaxLength)+". Allowed: a shorter CEL expression.")
		return dracel.CompilationResult{}, false
	}
	result := compileSelector(expression)
	if result.Error != nil {
		diags.AddError(path, "Invalid selector",
			"Kubernetes' DRA CEL library refuses the selector: "+result.Error.Detail+". Allowed: a CEL expression "+
				"that evaluates to a bool over device.driver, device.attributes[\"<domain>\"].<name> and "+
				"device.capacity[\"<domain>\"].<name>, e.g. `"+selectorExample+"`.")
		return result, false
	}
	if result.MaxCost > resourcev1.CELSelectorExpressionMaxCost {
		diags.AddError(path, "Selector too complex",
			"The selector's worst-case cost is "+strconv.FormatUint(result.MaxCost, 10)+"; the API server refuses "+
				"more than "+strconv.FormatUint(resourcev1.CELSelectorExpressionMaxCost, 10)+" (\"too complex, exceeds "+
				"cost limit\"). Allowed: a simpler expression, or several selectors (they are ANDed).")
		return result, false
	}
	return result, true
}

// reference is one attribute or capacity a selector reads by a constant
// domain and name.
type reference struct {
	capacity     bool
	domain, name string
}

// references are the attributes and capacities a compiled expression
// reads: device.attributes["<domain>"].<name>, or ["<name>"], or their
// optional forms, and the same under device.capacity. complete is false
// when the expression also reads the maps some other way (a computed key,
// "x" in ..., size()): what it reads is then not all known.
func references(compiled dracel.CompilationResult) (refs []reference, complete bool) {
	if compiled.Environment == nil {
		return nil, false
	}
	parsed, issues := compiled.Environment.Parse(compiled.Expression)
	if issues != nil && issues.Err() != nil {
		return nil, false
	}
	maps := 0
	for _, e := range ast.MatchDescendants(ast.NavigateAST(parsed.NativeRep()), ast.AllMatcher()) {
		if isDeviceMap(e) {
			maps++
		}
		var operand ast.Expr
		var name string
		switch e.Kind() {
		case ast.SelectKind:
			operand, name = e.AsSelect().Operand(), e.AsSelect().FieldName()
		case ast.CallKind:
			call := e.AsCall()
			fn := call.FunctionName()
			if (fn != operators.Index && fn != operators.OptIndex && fn != operators.OptSelect) || len(call.Args()) != 2 {
				continue
			}
			var ok bool
			if name, ok = stringLiteral(call.Args()[1]); !ok {
				continue
			}
			operand = call.Args()[0]
		default:
			continue
		}
		if capacity, domain, ok := domainMap(operand); ok {
			refs = append(refs, reference{capacity: capacity, domain: domain, name: name})
		}
	}
	return refs, maps == len(refs)
}

// isDeviceMap recognises device.attributes and device.capacity.
func isDeviceMap(e ast.Expr) bool {
	if e.Kind() != ast.SelectKind {
		return false
	}
	sel := e.AsSelect()
	return sel.Operand().Kind() == ast.IdentKind && sel.Operand().AsIdent() == "device" &&
		(sel.FieldName() == "attributes" || sel.FieldName() == "capacity")
}

// domainMap recognises device.attributes["<domain>"] and
// device.capacity["<domain>"].
func domainMap(e ast.Expr) (capacity bool, domain string, ok bool) {
	if e.Kind() != ast.CallKind || e.AsCall().FunctionName() != operators.Index || len(e.AsCall().Args()) != 2 {
		return false, "", false
	}
	args := e.AsCall().Args()
	domain, ok = stringLiteral(args[1])
	if !ok {
		return false, "", false
	}
	if !isDeviceMap(args[0]) {
		return false, "", false
	}
	return args[0].AsSelect().FieldName() == "capacity", domain, true
}

func stringLiteral(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().Value().(string)
	return s, ok
}

// checkSelectorNames reports attributes and capacities of the driver's
// domain (and, under the driver's own classes, of the standard domain)
// that the driver does not publish on the devices asked for: on a real
// device they are a "no such key" runtime error, which fails the claim's
// allocation, not just that device.
func checkSelectorNames(path []any, compiled dracel.CompilationResult, deviceType string, diags *gpudiag.Diagnostics) bool {
	ok := true
	refs, _ := references(compiled)
	for _, ref := range refs {
		var allowed []string
		var pick func(deviceNames) []string
		switch {
		case ref.domain == Driver && ref.capacity:
			if deviceType != TypeGPU && isMemorySlice(ref.name) {
				continue
			}
			allowed, pick = CapacityNames(deviceType), func(n deviceNames) []string { return n.capacity }
		case ref.domain == Driver:
			allowed, pick = AttributeNames(deviceType), func(n deviceNames) []string { return n.attributes }
		case ref.domain == StandardDomain && !ref.capacity && deviceType != "":
			allowed, pick = StandardAttributeNames(deviceType), func(n deviceNames) []string { return n.standard }
		default:
			continue
		}
		if why := releaseBoundWhy(ref.domain, ref.name, deviceType); why != "" && !ref.capacity {
			diags.AddWarning(path, "Selector names an attribute only some driver releases publish", releaseBoundDetail(ref, why))
			continue
		}
		if slices.Contains(allowed, ref.name) {
			continue
		}
		ok = false
		diags.AddError(path, "Selector names an attribute the driver does not publish",
			unpublishedDetail(ref, deviceType, allowed, pick))
	}
	return ok
}

// releaseBoundDetail: a name one of the driver releases in use publishes
// and the other does not.
func releaseBoundDetail(ref reference, why string) string {
	return strconv.Quote(ref.name) + " (" + ref.domain + " attribute) " + why + ". On a release without it, reading " +
		"it is a CEL runtime error that fails the claim's allocation (a has() test before it avoids that). The " +
		"provider follows NVIDIA's DRA driver " + releasesInUse + " and does not know which one the nodes run: keep " +
		"the name only where every node runs a release that publishes it."
}

func unpublishedDetail(ref reference, deviceType string, allowed []string, pick func(deviceNames) []string) string {
	kind := "attribute"
	if ref.capacity {
		kind = "capacity"
	}
	what := strconv.Quote(ref.name) + " (" + ref.domain + " " + kind + ")"
	var why string
	switch others := typesPublishing(ref.name, pick); {
	case !ref.capacity && ref.domain == Driver && removed[ref.name] != "":
		why = what + " " + removed[ref.name] + "."
	case len(others) > 0:
		why = what + " is published only on " + strings.Join(others, ", ") + " devices, and the claim asks for " +
			deviceType + " devices."
	default:
		why = what + " is not published by NVIDIA's DRA driver."
	}
	devices := "its devices"
	if deviceType != "" {
		devices = deviceType + " devices"
	}
	return why + " A device without it fails the claim's allocation with a CEL runtime error. Allowed " + kind +
		" names on " + devices + ": " + gpudiag.QuoteList(allowed) + "."
}

// checkSelectorMatches evaluates the selector, with the scheduler's
// library, on the devices the driver would publish for the target: false
// on every one means the selector contradicts the request. It is only
// evaluated when it reads nothing but what those synthetic devices know:
// anything else (a uuid, a version, a has() of a capacity no reading
// recorded) is unknown, not absent, and proves nothing either way.
func checkSelectorMatches(path []any, compiled dracel.CompilationResult, devices []modelDevices, diags *gpudiag.Diagnostics) {
	refs, complete := references(compiled)
	if len(devices) == 0 || !complete {
		return
	}
	var refused []string
	for _, m := range devices {
		for _, d := range m.devices {
			if !knowsAll(d, refs) {
				return
			}
			matches, _, err := compiled.DeviceMatches(context.Background(), d)
			switch {
			case err != nil && strings.Contains(err.Error(), "no such key"):
				return // depends on what no synthetic device knows
			case err != nil:
				diags.AddError(path, "Selector fails on the requested devices",
					"On a "+modelName(m)+" device the selector stops with a CEL runtime error, which fails the claim's "+
						"allocation: "+dracel.EnhanceRuntimeError(err).Error()+". Allowed: an expression that evaluates to a bool, "+
						"comparing each attribute with a value of its type (string, int, bool, a version with semver(), "+
						"a capacity with quantity()).")
				return
			case matches:
				return
			}
		}
		refused = append(refused, modelName(m))
	}
	diags.AddError(path, "Selector contradicts the GPU request",
		"The selector is false on every device NVIDIA's DRA driver publishes for "+strings.Join(refused, ", ")+
			", so the claim can never be allocated. "+requestedDevices(devices)+" Allowed: a selector those devices "+
			"pass, or change accelerator, accelerators or partition to what the selector means.")
}

// knowsAll reports whether a synthetic device carries every reference.
func knowsAll(d dracel.Device, refs []reference) bool {
	for _, ref := range refs {
		if ref.domain != Driver {
			return false
		}
		var known bool
		if ref.capacity {
			_, known = d.Capacity[resourcev1.QualifiedName(ref.name)]
		} else {
			_, known = d.Attributes[resourcev1.QualifiedName(ref.name)]
		}
		if !known {
			return false
		}
	}
	return true
}

// modelName names an accelerator, or "any GPU".
func modelName(m modelDevices) string {
	if m.accelerator == nil {
		return "the requested class"
	}
	return m.accelerator.DisplayName + " (" + strconv.Quote(m.accelerator.Name) + ")"
}

// requestedDevices says what the synthetic devices carry, so the user can
// see what the selector was evaluated on.
func requestedDevices(devices []modelDevices) string {
	var parts []string
	for _, m := range devices {
		for _, d := range m.devices {
			var attrs []string
			for _, name := range []resourcev1.QualifiedName{"type", "productName", "profile"} {
				if v, ok := d.Attributes[name]; ok {
					attrs = append(attrs, string(name)+" = "+strconv.Quote(ptr.Deref(v.StringValue, "")))
				}
			}
			if m, ok := d.Capacity["memory"]; ok {
				attrs = append(attrs, "memory = "+m.Value.String())
			}
			parts = append(parts, strings.Join(attrs, ", "))
		}
	}
	return "Those devices have: " + strings.Join(parts, "; ") + "."
}
