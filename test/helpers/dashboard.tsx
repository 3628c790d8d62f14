// The dashboard mounted for a test (ink-testing-library) over a real model, at 110x20 with no saved servers and
// callbacks that do nothing, unless `props` says otherwise.
import { render } from "ink-testing-library";
import { Dashboard, type DashboardProps } from "../../src/ui/Dashboard.js";
import type { DashboardModel } from "../../src/ui/model.js";
import type { Clock } from "../../src/context.js";

export function renderDashboard(model: DashboardModel, clock: Clock, props: Partial<DashboardProps> = {}) {
  return render(
    <Dashboard
      model={model}
      clock={clock}
      servers={[]}
      width={110}
      height={20}
      onExit={() => {}}
      onPager={() => {}}
      onCopy={() => {}}
      {...props}
    />,
  );
}
