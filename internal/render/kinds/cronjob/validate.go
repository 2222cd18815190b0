package cronjob

import (
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // time_zone is checked against the IANA database, as the API server does

	"github.com/robfig/cron/v3"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
)

// check: a cronjob needs its block and a schedule the CronJob controller
// parses (standard five-field cron, as batch/v1 validation checks it with
// the same library).
func check(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) {
	c := w.CronJob
	if c == nil {
		if strict {
			diags.AddFinalError(gpudiag.At("kind"), "cronjob block missing",
				"A cronjob needs a schedule. Allowed: add cronjob { schedule = \"0 3 * * *\" }.")
		}
		return
	}
	validate.RequireSet(diags, strict, c.Schedule, gpudiag.At("cronjob", "schedule"), "a cron schedule such as \"0 3 * * *\"")
	checkSchedule(c.Schedule, diags)
	if c.TimeZone != "" {
		if _, err := time.LoadLocation(c.TimeZone); err != nil || strings.EqualFold(c.TimeZone, "local") {
			diags.AddError(gpudiag.At("cronjob", "time_zone"), "Unknown time zone",
				strconv.Quote(c.TimeZone)+" is not an IANA time zone. Allowed: a name such as \"Europe/Berlin\" or "+
					"\"Etc/UTC\" (default: the controller's zone, usually UTC).")
		}
	}
	if c.ConcurrencyPolicy != "" && !slices.Contains(spec.ConcurrencyPolicyNames(), c.ConcurrencyPolicy) {
		diags.AddError(gpudiag.At("cronjob", "concurrency_policy"), "Unknown concurrency policy",
			strconv.Quote(c.ConcurrencyPolicy)+" is not a concurrency policy. Allowed: "+
				gpudiag.QuoteList(spec.ConcurrencyPolicyNames())+" (default \"Allow\").")
	}
	validate.Min32(diags, c.SuccessfulJobsHistoryLimit, 0, gpudiag.At("cronjob", "successful_jobs_history_limit"))
	validate.Min32(diags, c.FailedJobsHistoryLimit, 0, gpudiag.At("cronjob", "failed_jobs_history_limit"))
	if d := c.StartingDeadlineSeconds; d != nil && *d < 0 {
		diags.AddError(gpudiag.At("cronjob", "starting_deadline_seconds"), "Value too small",
			"The value is "+strconv.FormatInt(*d, 10)+". Allowed: 0 or more.")
	}
}

// checkSchedule parses the schedule as the CronJob controller does. A
// time zone goes in time_zone: batch/v1 refuses TZ= and CRON_TZ= prefixes.
func checkSchedule(schedule string, diags *gpudiag.Diagnostics) {
	if schedule == "" {
		return
	}
	at := gpudiag.At("cronjob", "schedule")
	if strings.Contains(schedule, "TZ=") {
		diags.AddError(at, "Time zone in the schedule", "batch/v1 does not accept TZ= or CRON_TZ= in the schedule. "+
			"Allowed: the bare schedule, with the zone in time_zone.")
		return
	}
	if _, err := cron.ParseStandard(schedule); err != nil {
		diags.AddError(at, "Invalid schedule", strconv.Quote(schedule)+": "+err.Error()+". Allowed: five cron fields "+
			"(minute hour day-of-month month day-of-week) such as \"0 3 * * *\", or a macro such as \"@daily\".")
	}
}
