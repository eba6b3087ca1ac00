// Why a figure has nothing to draw, in words that say how to get it: no checkpoint yet, every
// type hidden, no layer in the range, a metric the run was not analysed for (with the menu item
// or option that computes it), or a metric that is NaN everywhere. The views print it in the plot
// instead of empty axes and a full legend.
#pragma once

#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QCoreApplication>

namespace rankscope {

class FigureNoData {
    Q_DECLARE_TR_FUNCTIONS(FigureNoData)
public:
    // The reason a figure of `metric` for run `run` in the state draws no value (the caller found
    // none finite), at `step` when the figure shows one step (nullopt: every step).
    // `view`: whose layer range the figure follows.
    static QString reason(const ViewState &state, Metric metric, int run, std::optional<qint64> step = std::nullopt,
                          LayerView view = LayerView::Shared);
    // For a metric the analysis computes only when asked (rand_distance, W − W₀, the subspace
    // agreement): what asks for it in the window and on the command line; empty for the others.
    static QString howToCompute(Metric metric);
};

} // namespace rankscope
