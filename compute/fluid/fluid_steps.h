// The fluid frame's steps (issue 27): one row per node of the frame, in execution order, and the panel's switches.
// Every consumer iterates these tables: the CPU reference's node list, the CUDA graph's build (a node per row, the
// substep rows in the WHILE body), its host-decided launches, its node list and its toggles. A new node of the frame
// is an enumerator and a row here, its kernel with its argument struct and specFor case (compute/fluid/cuda/
// fluid_kernels.cu), and its CPU stage (fluid_cpu.cpp) when it has one (docs/FLUID.md): the static_assert below
// catches a row out of place instead of a panel that lies. Plain C++17, no CUDA or Vulkan headers: nvcc reads it for
// the kernels' specFor, hence C arrays rather than std::to_array.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

namespace graphsim::fluid {

// What the panel switches on and off. Each row says how the CUDA backend applies the switch (shown in the panel).
enum class FluidToggle : int { Viscosity, Obstacle, Gravity, Colour };

struct FluidToggleInfo {
  FluidToggle toggle;
  std::string_view name;      // in scene files, the panel and messages
  std::string_view effect;    // what switching it off does
  std::string_view mechanism; // how the CUDA frame graph applies it, and why that way
};

inline constexpr FluidToggleInfo kFluidToggles[] = {
    {FluidToggle::Viscosity, "viscosity", "off: no artificial viscosity (alpha = 0 in the forces stage)",
     "node update: the forces kernel's alpha argument (viscosity is a term of the force sum, not a node)"},
    {FluidToggle::Obstacle, "obstacle", "off: particles pass through the sphere",
     "node enable/disable of the obstacle kernel inside the WHILE body, called on the parent graph's exec"},
    {FluidToggle::Gravity, "gravity", "off: no gravity (g = 0 in the forces stage)",
     "node update: the forces kernel's gravity argument (gravity is a term of the acceleration)"},
    {FluidToggle::Colour, "colour", "off: every particle drawn in one colour",
     "node enable/disable of the colour kernel (after the WHILE node; write_render writes one colour first)"},
};
inline constexpr int kFluidToggleCount = static_cast<int>(std::size(kFluidToggles));

// Every node of the frame, in execution order (the enumerator is the row's index in kFluidSteps).
// clang-format off
enum class FluidStep : int {
  FrameBegin, Cfl, Keys, Sort, ClearCells, Ranges, Reorder, Density, Forces, Integrate, Obstacle, Walls, Condition,
  Diagnostics, WriteRender, Colour, Report,
};
// clang-format on

// Where a step runs: once before the substeps, in every substep (the WHILE body), or once after them.
enum class StepPlace : unsigned char { FrameStart, Substep, FrameEnd };
// What the CUDA graph holds for it: a kernel node (FluidCudaBackend's specFor gives its parameters), the CUB sort
// captured as a child graph, or the memset that clears the cell table.
enum class StepNode : unsigned char { Kernel, SortChildGraph, ClearCellsMemset };

struct FluidStepRow {
  FluidStep step;
  std::string_view name; // the panel's, the node list's and the blow-up report's name
  StepPlace place;
  StepNode node;
  bool cpu;                          // the CPU reference has this stage (else a CUDA mechanism: loop, report)
  std::optional<FluidToggle> toggle; // the switch that enables and disables this node (panel: togglable)
  bool diagnostics;                  // the live diagnostics node: only with diagnosticsEvery > 0, its own switch
  std::string_view whyNot;           // why the panel cannot switch it off; empty when it can
};

// One row per line, the columns aligned (clang-format would fold a row into nine lines).
// clang-format off
inline constexpr FluidStepRow kFluidSteps[] = {
    {FluidStep::FrameBegin,  "frame_begin",  StepPlace::FrameStart, StepNode::Kernel,           false, {},                    false, "sets the frame's loop state"},
    {FluidStep::Cfl,         "cfl",          StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the substep's dt comes from it"},
    {FluidStep::Keys,        "cell_keys",    StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the neighbour search needs it"},
    {FluidStep::Sort,        "sort",         StepPlace::Substep,    StepNode::SortChildGraph,   true,  {},                    false, "the neighbour search needs it"},
    {FluidStep::ClearCells,  "clear_cells",  StepPlace::Substep,    StepNode::ClearCellsMemset, false, {},                    false, "the cell table must be cleared every substep"},
    {FluidStep::Ranges,      "cell_ranges",  StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the neighbour search needs it"},
    {FluidStep::Reorder,     "reorder",      StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the neighbour search needs it"},
    {FluidStep::Density,     "density",      StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the pressure comes from it"},
    {FluidStep::Forces,      "forces",       StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the fluid would not move but fall (viscosity has its own switch)"},
    {FluidStep::Integrate,   "integrate",    StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "it moves the particles (gravity has its own switch)"},
    {FluidStep::Obstacle,    "obstacle",     StepPlace::Substep,    StepNode::Kernel,           true,  FluidToggle::Obstacle, false, ""},
    {FluidStep::Walls,       "walls",        StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "it keeps every particle in the box"},
    {FluidStep::Condition,   "condition",    StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "it decides whether the frame runs another substep"},
    {FluidStep::Diagnostics, "diagnostics",  StepPlace::FrameEnd,   StepNode::Kernel,           true,  {},                    true,  ""},
    {FluidStep::WriteRender, "write_render", StepPlace::FrameEnd,   StepNode::Kernel,           true,  {},                    false, "the renderer draws this buffer every frame"},
    {FluidStep::Colour,      "colour",       StepPlace::FrameEnd,   StepNode::Kernel,           true,  FluidToggle::Colour,   false, ""},
    {FluidStep::Report,      "report",       StepPlace::FrameEnd,   StepNode::Kernel,           false, {},                    false, "the host reads the frame's substeps, dt and blow-up from it"},
};
// clang-format on

constexpr const FluidStepRow& stepRow(FluidStep step) { return kFluidSteps[static_cast<std::size_t>(step)]; }
constexpr const FluidStepRow* findStep(std::string_view name) { // nullptr: no such step
  for (const FluidStepRow& row : kFluidSteps)
    if (row.name == name) return &row;
  return nullptr;
}

// Whether a switch enables and disables nodes (else it is a kernel argument: a node update).
constexpr bool toggleIsNode(FluidToggle toggle) {
  for (const FluidStepRow& row : kFluidSteps)
    if (row.toggle == toggle) return true;
  return false;
}

// The table's invariants, checked at build time: row i is step i; a row is togglable exactly when it has a switch;
// the places come in frame order.
constexpr bool stepTableConsistent() {
  StepPlace last = StepPlace::FrameStart;
  for (std::size_t i = 0; i < std::size(kFluidSteps); ++i) {
    const FluidStepRow& row = kFluidSteps[i];
    if (static_cast<std::size_t>(row.step) != i) return false;
    if (row.whyNot.empty() != (row.toggle.has_value() || row.diagnostics)) return false;
    if (row.place < last) return false;
    last = row.place;
  }
  return true;
}
static_assert(stepTableConsistent(),
              "kFluidSteps: row i must be FluidStep i, in frame order, with a reason exactly "
              "when it has no switch");
static_assert(static_cast<std::size_t>(FluidStep::Report) + 1 == std::size(kFluidSteps), "a FluidStep without a row");

} // namespace graphsim::fluid
