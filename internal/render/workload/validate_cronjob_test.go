package workload

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func cronWorkload(c *spec.CronJobControls) spec.Workload {
	w := rendertest.ValidWorkload()
	w.Kind, w.CronJob = spec.KindCronJob, c
	return w
}

// Each cronjob rule is reported on its attribute, saying what is allowed.
func TestValidateCronJob(t *testing.T) {
	deployment := rendertest.ValidWorkload()
	deployment.CronJob = &spec.CronJobControls{Schedule: "@daily"}
	cases := map[string]struct {
		w          spec.Workload
		path, want string
	}{
		"no block":             {cronWorkload(nil), "kind", "needs a schedule"},
		"no schedule":          {cronWorkload(&spec.CronJobControls{}), "cronjob.schedule", "A value is required"},
		"six fields":           {cronWorkload(&spec.CronJobControls{Schedule: "0 0 3 * * *"}), "cronjob.schedule", "five cron fields"},
		"zone in the schedule": {cronWorkload(&spec.CronJobControls{Schedule: "CRON_TZ=UTC 0 3 * * *"}), "cronjob.schedule", "time_zone"},
		"unknown zone":         {cronWorkload(&spec.CronJobControls{Schedule: "@daily", TimeZone: "Mars/Olympus"}), "cronjob.time_zone", "IANA"},
		"unknown policy":       {cronWorkload(&spec.CronJobControls{Schedule: "@daily", ConcurrencyPolicy: "Never"}), "cronjob.concurrency_policy", `"Forbid"`},
		"negative history": {cronWorkload(&spec.CronJobControls{Schedule: "@daily", FailedJobsHistoryLimit: rendertest.Ptr(int32(-1))}),
			"cronjob.failed_jobs_history_limit", "0 or more"},
		"block on a deployment": {deployment, "cronjob", `kind = "cronjob"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			diags := Resolve(c.w, nil, true).Findings
			rendertest.RequireDiag(t, diags, gpudiag.SeverityError, c.path, c.want)
		})
	}
	diags := Resolve(cronWorkload(&spec.CronJobControls{Schedule: "*/15 * * * *", TimeZone: "Asia/Tokyo",
		ConcurrencyPolicy: "Replace"}), nil, true).Findings
	rendertest.RequireNoErrors(t, diags)
}
