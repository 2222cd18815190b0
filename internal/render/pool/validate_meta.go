package pool

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
)

// checkPoolLabels validates the extra node labels and returns them.
func checkPoolLabels(labels map[string]string, pi clouds.PoolIntent, diags *gpudiag.Diagnostics) map[string]string {
	if len(labels) == 0 {
		return maps.Clone(labels) // nothing to check against the derived labels
	}
	toAdd, cloudSet := clouds.DerivedPoolLabels(pi)
	for _, key := range validate.SortedKeys(labels) {
		path := gpudiag.At("labels", gpudiag.MapKey(key))
		value := labels[key]
		if msgs := names.LabelKey(key); len(msgs) > 0 {
			diags.AddError(path, "Invalid label key", strconv.Quote(key)+": "+strings.Join(msgs, "; ")+
				". Allowed: an optional DNS subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_' or '.'.")
			continue
		}
		if msgs := names.LabelValue(value); len(msgs) > 0 {
			diags.AddError(path, "Invalid label value", strconv.Quote(value)+": "+strings.Join(msgs, "; ")+
				". Allowed: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty.")
		}
		if derived, ok := toAdd[key]; ok {
			diags.AddError(path, "Label set by the pool",
				strconv.Quote(key)+" is derived from the other attributes (here "+strconv.Quote(derived)+") and added by the pool. "+
					"Allowed: remove it from labels; change the attribute it comes from instead.")
			continue
		}
		if derived, ok := cloudSet[key]; ok {
			diags.AddError(path, "Label set by the cloud",
				strconv.Quote(key)+" is set on the nodes by "+string(pi.Cloud.Name())+" or the GPU Operator (here "+strconv.Quote(derived)+
					"), and the placement already selects on it. Allowed: remove it from labels.")
			continue
		}
		if prefix, by, reserved := reservedLabelPrefix(key, pi.Cloud); reserved {
			diags.AddError(path, "Reserved label prefix",
				strconv.Quote(key)+" uses the prefix "+strconv.Quote(prefix)+", which "+by+
					". Allowed: a key under your own prefix, such as \"example.com/team\", or without a prefix.")
		}
	}
	return maps.Clone(labels)
}

// reservedLabelPrefix reports label domains that node pools cannot set,
// and who keeps them: kubernetes.io and k8s.io (the kubelet's
// NodeRestriction admission lets a node set only node.kubernetes.io/ and
// kubelet.kubernetes.io/ keys there), and the cloud's own domains (its
// pool rules' ReservedLabelDomains; none for an unknown cloud).
func reservedLabelPrefix(key string, c clouds.PoolRules) (prefix, by string, reserved bool) {
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return "", "", false
	}
	switch domain {
	case "node.kubernetes.io", "kubelet.kubernetes.io":
		return "", "", false
	}
	for _, domains := range [][]clouds.ReservedDomain{kubernetesDomains, c.ReservedLabelDomains()} {
		for _, r := range domains {
			if inDomain(domain, r.Domain) {
				return r.Domain + "/", r.By, true
			}
		}
	}
	return "", "", false
}

// kubernetesDomains are the label domains Kubernetes itself reserves.
var kubernetesDomains = []clouds.ReservedDomain{{Domain: "kubernetes.io", By: reservedByKubernetes}, {Domain: "k8s.io", By: reservedByKubernetes}}

const reservedByKubernetes = "Kubernetes reserves; nodes may not label themselves with it (NodeRestriction)"

// inDomain: domain is parent or one of its subdomains (without building
// "."+parent for every label checked).
func inDomain(domain, parent string) bool {
	sub, found := strings.CutSuffix(domain, parent)
	return found && (sub == "" || strings.HasSuffix(sub, "."))
}

// checkPoolTaints validates the extra taints and returns them.
func checkPoolTaints(taints []spec.Taint, pi clouds.PoolIntent, strict bool, diags *gpudiag.Diagnostics) []spec.Taint {
	derived := clouds.DerivedPoolTaints(pi)
	for i, t := range taints {
		checkTaintFields(i, t, strict, diags)
		if t.Key == "" || t.Effect == "" {
			continue
		}
		if j := slices.IndexFunc(taints[:i], func(o spec.Taint) bool { return o.Key == t.Key && o.Effect == t.Effect }); j >= 0 {
			diags.AddError(gpudiag.At("taints", i), "Duplicate taint",
				"taints["+strconv.Itoa(j)+"] already has key "+strconv.Quote(t.Key)+" with effect "+t.Effect+
					"; a node keeps one taint per key and effect. Allowed: one entry per key and effect.")
			continue
		}
		if d := slices.IndexFunc(derived, func(o clouds.PoolTaint) bool {
			return o.Taint.Key == t.Key && string(o.Taint.Effect) == t.Effect
		}); d >= 0 {
			diags.AddError(gpudiag.At("taints", i), "Taint added by the pool",
				t.Key+":"+t.Effect+" is already on the nodes ("+derived[d].Because+"). Allowed: remove it"+
					dedicatedHint(pi)+".")
		}
	}
	return slices.Clone(taints)
}

func dedicatedHint(pi clouds.PoolIntent) string {
	if pi.Cloud.AddsGPUTaint() || !pi.Dedicated {
		return ""
	}
	return ", or set dedicated = false to manage the GPU taint yourself"
}

func checkTaintFields(i int, t spec.Taint, strict bool, diags *gpudiag.Diagnostics) {
	if t.Key == "" {
		if strict {
			diags.AddError(gpudiag.At("taints", i, "key"), "Missing taint key", "A taint needs a key. Allowed: a label-style key such as \"example.com/dedicated\".")
		}
	} else if msgs := names.LabelKey(t.Key); len(msgs) > 0 {
		diags.AddError(gpudiag.At("taints", i, "key"), "Invalid taint key", strconv.Quote(t.Key)+": "+strings.Join(msgs, "; ")+
			". Allowed: an optional DNS subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_' or '.'.")
	}
	if t.Value != "" {
		if msgs := names.LabelValue(t.Value); len(msgs) > 0 {
			diags.AddError(gpudiag.At("taints", i, "value"), "Invalid taint value", strconv.Quote(t.Value)+": "+strings.Join(msgs, "; ")+
				". Allowed: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty.")
		}
	}
	switch {
	case t.Effect == "":
		if strict {
			diags.AddError(gpudiag.At("taints", i, "effect"), "Missing taint effect", "Allowed values: "+gpudiag.QuoteList(spec.TaintEffectNames())+".")
		}
	case !slices.Contains(spec.TaintEffectNames(), t.Effect):
		diags.AddError(gpudiag.At("taints", i, "effect"), "Invalid taint effect",
			strconv.Quote(t.Effect)+" is not a taint effect. Allowed values: "+gpudiag.QuoteList(spec.TaintEffectNames())+
				" (Kubernetes spelling; the provider converts to each cloud's form).")
	}
}
