#pragma once
// View model of the divergence panel: how far each layer of the
// mixed-precision run has drifted from its FP32 twin over the recent steps
// (log.recent, the latest full records): the relative L2 distance of the
// weights and the cosine of the unscaled weight gradients, as one line per
// layer (min/max per pixel column) and as heat maps (rows = layers,
// columns = spans of steps).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/train/run_log.h"
#include "ui/present/layer_blocks.h"
#include "ui/present/plot_columns.h"

namespace plab {

struct DivergenceLayer {
    std::string name;           // the run's: "fc1", "h0.attn.q"
    std::vector<XY> rel_dist;   // column_polyline; a distance of 0 is drawn at DivergenceView::rel_dist_min
    std::vector<XY> grad_cos;   // column_polyline
};

// One heat-map cell: the worst step of the steps it covers (see HeatMap).
struct HeatCell {
    double value = std::numeric_limits<double>::quiet_NaN();  // NaN when no finite value fell in it
    double shade = std::numeric_limits<double>::quiet_NaN();  // 0 = like the twin .. 1 = farthest; NaN with value
    bool nonfinite = false;  // a step in it held a non-finite value (an overflow: the gradient held Inf/NaN)
};

// The steps first_step..last_step (a column of cells).
struct HeatColumn {
    std::int64_t first_step = 0;
    std::int64_t last_step = 0;
};

// A label of the colour scale: what value a shade stands for.
struct ShadeTick {
    double shade = 0;
    std::string text;  // "1e-3", "0.95"
};

// Rows are layers (fc1 first), columns spans of consecutive steps. A cell
// shows the worst step it covers (largest distance, smallest cosine), as a
// min/max column of the lines does: however narrow the map, one bad step
// stays visible instead of being averaged away by its neighbours.
struct HeatMap {
    std::vector<HeatColumn> columns;
    std::vector<std::vector<HeatCell>> rows;  // rows[layer][column]
    // The colour scale's labels, by increasing shade (at most five). The
    // distance's shade is also its place on the log axis of the lines
    // (0 = rel_dist_min, 1 = rel_dist_max), so these label that axis too.
    std::vector<ShadeTick> ticks;
};

struct DivergenceView {
    bool twin = true;
    std::vector<DivergenceLayer> layers;  // empty when there is nothing to draw (no twin, no steps, no telemetry)
    double step_min = 0, step_max = 1;    // x axis: the boundary before the first shown step .. the last step
    // Log y axis of the distance: powers of ten around the positive distances.
    // When some distance is exactly 0 (the weights equal the twin's bit for
    // bit) the bottom goes one decade further down and the zeros are drawn
    // there, on the bottom edge, below every true distance.
    double rel_dist_min = 1e-6, rel_dist_max = 1;
    bool rel_dist_zeros = false;          // some drawn distance is a 0 at rel_dist_min
    double cos_min = 0.9, cos_max = 1;    // y axis of the cosine
    HeatMap rel_dist_heat;                // max distance per cell; shade = its place between the axis's decades (0 for 0)
    HeatMap grad_cos_heat;                // min cosine per cell; shade 0 at cos 1, 1 at cos_min
    // The layers grouped by block, for the heat maps' labels at 30-60 rows
    // (row_label_blocks: "head, wpe" one group); empty when no layer name
    // names a block (an MLP's fc1, fc2, ...).
    std::vector<LayerBlock> blocks;
    std::string summary;                  // the layer farthest from the twin at the latest step, or why nothing is shown
    // The layers whose lines have gaps because their value was not finite, and
    // where: "gradient cosine not finite (Inf/NaN in the gradient): fc1, fc2 at
    // every step shown; fc3 at steps 29-100". Empty when every value was finite.
    std::string rel_dist_gaps;
    std::string grad_cos_gaps;
};

// `twin` says whether the run has an FP32 twin (RunConfig::twin); without
// one the records hold zeros and nothing is drawn. The lines are decimated
// to `columns` pixel columns; a heat map has at most `columns` columns (one
// per step while the steps fit). Non-finite values are left out of the lines
// and mark the heat cells they fall in; so is the cosine of a layer whose
// gradient held Inf or NaN (an overflow step), whatever number it was.
// Layers are named from `layer_names` (the run's, RunView::layer_names);
// "fc<n>" for any beyond it.
DivergenceView make_divergence_view(const RunLogView& log, bool twin, int columns,
                                    const std::vector<std::string>& layer_names = {});

enum class DivergenceMetric { rel_dist, grad_cos };

// Hover text of one cell of the metric's heat map, e.g.
// "fc2 · steps 101–104 · largest distance 0.00231"; row and column must be in the map.
std::string heat_cell_text(const DivergenceView& view, DivergenceMetric metric, std::size_t row, std::size_t column);

}  // namespace plab
