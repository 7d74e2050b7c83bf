// The n-body scene's parameters as rows (issue 27, compute/param_table.h): key, range, slider and soak move of each
// NBodyParams field (compute/nbody/nbody.h), which the scene file's "params", the panel, the session recording and the
// soak iterate. Kept out of nbody.h, which the CUDA sources include (built as C++17).
#pragma once

#include "compute/nbody/nbody.h"
#include "compute/param_table.h"

namespace graphsim {

// Table order: the panel's sliders and the soak's moves (its seeded sequence picks by index) follow it. The ranges
// are the scene file's (the backends accept more: softening 0 in tests).
// clang-format off
inline constexpr ParamRow<NBodyParams> kNBodyParams[] = {
    {.key = "dt", .member = &NBodyParams::dt, .range = {1e-7, 0.1},
     .slider = {"dt", "dt", 1e-5f, 1e-2f, SliderScale::Log, "%.5f"},
     .soak = {0.0005f, 0.0015f}, .help = "time step of one substep"}, // soak: the preset's chaos at most, dt <= 0.0015
    {.key = "G", .member = &NBodyParams::G, .range = {0.0, 1e3},
     .slider = {"G", "G", 0.01f, 10.0f, SliderScale::Log, "%.3f"}, .soak = {0.5f, 1.25f},
     .help = "gravitational constant"},
    {.key = "softening", .member = &NBodyParams::softening, .range = {kMinSoftening, 10.0},
     .why = "a smaller softening lets close encounters give unbounded accelerations (the run blows up)",
     .slider = {"softening", "softening", 1e-3f, 1.0f, SliderScale::Log, "%.4f"},
     .soak = {0.025f, 0.05f}, .help = "Plummer softening length epsilon"}, // soak: >= the preset's 0.025
    {.key = "damping", .member = &NBodyParams::damping, .range = {0.0, 100.0},
     .slider = {"damping", "damping", 0.0f, 5.0f, SliderScale::Linear, "%.3f"}, .soak = {0.0f, 2.0f},
     .help = "damping stage: v *= exp(-damping dt)"},
    {.key = "attractor_strength", .field = "attractorStrength", .member = &NBodyParams::attractorStrength,
     .range = {-1e3, 1e3}, .slider = {"attractor", "attractor", 0.0f, 50.0f, SliderScale::Linear, "%.2f"},
     .soak = {-4.0f, 4.0f}, .help = "attractor stage: mass of a softened point attractor (hold A to place it)"},
    {.key = "attractor_pos", .field = "attractorPos", .member = &NBodyParams::attractorPos, .range = {-1e6, 1e6},
     .slider = {"attractor pos", "attractor_pos", -10.0f, 10.0f, SliderScale::Linear, "%.2f"}, .soak = {-3.0f, 3.0f}},
    {.key = "boundary_radius", .field = "boundaryRadius", .member = &NBodyParams::boundaryRadius, .range = {1e-3, 1e6},
     .soak = {4.0f, 16.0f}},
    {.key = "colour_scale", .field = "colourScale", .member = &NBodyParams::colourScale, .range = {0.0, 1e3},
     .slider = {"colour scale", "colour_scale", 0.05f, 10.0f, SliderScale::Log, "%.2f"}, .soak = {0.2f, 3.0f},
     .help = "colour stage: colour attribute = clamp(|v| colourScale / 2, 0, 1)"},
    {.key = "theta", .member = &NBodyParams::theta, .range = {0.0, kMaxTheta, true},
     .why = "the tree's opening angle: 0 would open every cell (use forces: direct), above 1.5 the error is unbounded",
     .slider = {"theta", "theta", 0.1f, 1.2f, SliderScale::Linear, "%.2f"}, .soak = {0.3f, 0.8f},
     .help = "forces: tree: a cell acts through its moments when seen under less than this angle", .only = "tree"},
    {.key = "leaf_size", .field = "leafSize", .member = &NBodyParams::leafSize, .range = {1.0, kMaxLeafSize},
     .slider = {"leaf size", "leaf_size", 1.0f, 64.0f, SliderScale::Log, "%d"}, .soak = {4.0f, 32.0f},
     .help = "forces: tree: the most bodies a leaf cell holds", .only = "tree"},
    {.key = "tree_tolerance", .field = "treeTolerance", .member = &NBodyParams::treeTolerance, .range = {0.0, 1.0},
     .slider = {"tolerance", "tree_tolerance", 1e-4f, 0.1f, SliderScale::Log, "%.4f"}, .soak = {0.002f, 0.02f},
     .help = "forces: tree: also open a cell whose next multipole term exceeds this fraction of |a| (0: theta alone)",
     .only = "tree"},
};
// clang-format on
static_assert(coversEveryField(kNBodyParams), "kNBodyParams: an NBodyParams field has no row (or two rows)");

} // namespace graphsim
