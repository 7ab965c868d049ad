package job

import (
	"slices"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// TestSchedulerNames: the config key takes exactly the runtime's
// schedulers, and its default is one of them.
func TestSchedulerNames(t *testing.T) {
	if !slices.Equal(config.Schedulers(), runtime.Schedulers()) {
		t.Errorf("config.Schedulers() = %v, runtime.Schedulers() = %v", config.Schedulers(), runtime.Schedulers())
	}
	if d := config.DefaultFit().Scheduler; !slices.Contains(runtime.Schedulers(), d) {
		t.Errorf("default scheduler %q is not a runtime scheduler", d)
	}
}
