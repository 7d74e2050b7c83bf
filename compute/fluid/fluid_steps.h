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

// The pressure solvers (issue 28): the frame graph holds both under a SWITCH node whose value the cfl kernel sets from
// its argument, so choosing one is a node update.
enum class FluidSolver : int { Wcsph, Dfsph };
inline constexpr std::string_view kFluidSolverNames[] = {"wcsph", "dfsph"};

// Every node of the frame (the enumerator is the row's index in kFluidSteps). Within one scope (below) the table's
// order is the execution order.
// clang-format off
enum class FluidStep : int {
  FrameBegin, Cfl, Resort, Keys, Sort, ClearCells, Ranges, Reorder, ListBuild, KeepOrder, Solver, Density, Forces,
  Integrate, Obstacle, Walls, Condition, DensityFactor, DivergenceLoop, NonPressure, DensityLoop, Advect, DivergenceErrors, DivergenceCheck,
  DivergenceKappa, DensityErrors, DensityCheck, DensityKappa, Diagnostics, WriteRender, Colour, Report,
};
// clang-format on

// Where a step runs: once before the substeps, in every substep (the WHILE body), or once after them.
enum class StepPlace : unsigned char { FrameStart, Substep, FrameEnd };
// The graph a row's node sits in within its place: the place's own, a branch of the re-sort IF (Resort: sort and build
// the neighbour lists; KeepOrder: keep the particles' order and lists), a branch of the solver SWITCH, or the body of
// one of DFSPH's two solve WHILE nodes (nested in the substep WHILE).
enum class StepScope : unsigned char { Top, Resort, KeepOrder, Wcsph, Dfsph, DivergenceLoop, DensityLoop };
// What the CUDA graph holds for it: a kernel node (FluidCudaBackend's specFor gives its parameters), the CUB sort
// captured as a child graph, the memset that clears the cell table, the solver SWITCH (its branches: the Wcsph and
// Dfsph scopes), a solve's WHILE node (its body: the scope of the row's `body`) or the re-sort IF node (its branches:
// the row's `body` when cfl sets it, `orElse` when not).
enum class StepNode : unsigned char { Kernel, SortChildGraph, ClearCellsMemset, SolverSwitch, SolveWhile, ResortIf };

struct FluidStepRow {
  FluidStep step;
  std::string_view name; // the panel's, the node list's and the blow-up report's name
  StepPlace place;
  StepNode node;
  bool cpu;                          // the CPU reference has this stage (else a CUDA mechanism: loop, report)
  std::optional<FluidToggle> toggle; // the switch that enables and disables this node (panel: togglable)
  bool diagnostics;                  // the live diagnostics node: only with diagnosticsEvery > 0, its own switch
  std::string_view whyNot;           // why the panel cannot switch it off; empty when it can
  StepScope scope = StepScope::Top;
  StepScope body = StepScope::Top;   // a SolveWhile row: the scope of its body; the ResortIf row: its IF branch
  StepScope orElse = StepScope::Top; // the ResortIf row: its ELSE branch
};

// One row per line, the columns aligned (clang-format would fold a row into nine lines).
// clang-format off
inline constexpr FluidStepRow kFluidSteps[] = {
    {FluidStep::FrameBegin,       "frame_begin",       StepPlace::FrameStart, StepNode::Kernel,           false, {},                    false, "sets the frame's loop state"},
    {FluidStep::Cfl,              "cfl",               StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the substep's dt comes from it (and the solver SWITCH's value)"},
    {FluidStep::Resort,           "resort",            StepPlace::Substep,    StepNode::ResortIf,         false, {},                    false, "a conditional IF: cfl decides whether the particles are sorted and their lists rebuilt", StepScope::Top, StepScope::Resort, StepScope::KeepOrder},
    {FluidStep::Keys,             "cell_keys",         StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the neighbour search needs it", StepScope::Resort},
    {FluidStep::Sort,             "sort",              StepPlace::Substep,    StepNode::SortChildGraph,   true,  {},                    false, "the neighbour search needs it", StepScope::Resort},
    {FluidStep::ClearCells,       "clear_cells",       StepPlace::Substep,    StepNode::ClearCellsMemset, false, {},                    false, "the cell table must be cleared before it is filled", StepScope::Resort},
    {FluidStep::Ranges,           "cell_ranges",       StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the neighbour search needs it", StepScope::Resort},
    {FluidStep::Reorder,          "reorder",           StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the neighbour search needs it", StepScope::Resort},
    {FluidStep::ListBuild,        "neighbour_lists",   StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "DFSPH's neighbour passes read the lists it writes", StepScope::Resort},
    {FluidStep::KeepOrder,        "keep_order",        StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "the step's kernels read the particles it copies", StepScope::KeepOrder},
    {FluidStep::Solver,           "solver",            StepPlace::Substep,    StepNode::SolverSwitch,     false, {},                    false, "a conditional SWITCH: the solver setting picks its branch"},
    {FluidStep::Density,          "density",           StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the pressure comes from it", StepScope::Wcsph},
    {FluidStep::Forces,           "forces",            StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the fluid would not move but fall (viscosity has its own switch)", StepScope::Wcsph},
    {FluidStep::Integrate,        "integrate",         StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "it moves the particles (gravity has its own switch)", StepScope::Wcsph},
    {FluidStep::Obstacle,         "obstacle",          StepPlace::Substep,    StepNode::Kernel,           true,  FluidToggle::Obstacle, false, ""},
    {FluidStep::Walls,            "walls",             StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "it keeps every particle in the box"},
    {FluidStep::Condition,        "condition",         StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "it decides whether the frame runs another substep"},
    {FluidStep::DensityFactor,    "density_factor",    StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "the solves need the density and the DFSPH factor", StepScope::Dfsph},
    {FluidStep::DivergenceLoop,   "divergence_solve",  StepPlace::Substep,    StepNode::SolveWhile,       false, {},                    false, "a conditional WHILE: it runs until the divergence error is at the tolerance", StepScope::Dfsph, StepScope::DivergenceLoop},
    {FluidStep::NonPressure,      "non_pressure",      StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "viscosity and gravity (each has its own switch)", StepScope::Dfsph},
    {FluidStep::DensityLoop,      "density_solve",     StepPlace::Substep,    StepNode::SolveWhile,       false, {},                    false, "a conditional WHILE: it runs until the density error is at the tolerance", StepScope::Dfsph, StepScope::DensityLoop},
    {FluidStep::Advect,           "advect",            StepPlace::Substep,    StepNode::Kernel,           true,  {},                    false, "it moves the particles", StepScope::Dfsph},
    {FluidStep::DivergenceErrors, "divergence_errors", StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "the loop's error and kappas", StepScope::DivergenceLoop},
    {FluidStep::DivergenceCheck,  "divergence_check",  StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "it decides whether the solve goes on", StepScope::DivergenceLoop},
    {FluidStep::DivergenceKappa,  "divergence_kappa",  StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "the solve's velocity update", StepScope::DivergenceLoop},
    {FluidStep::DensityErrors,    "density_errors",    StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "the loop's error and kappas", StepScope::DensityLoop},
    {FluidStep::DensityCheck,     "density_check",     StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "it decides whether the solve goes on", StepScope::DensityLoop},
    {FluidStep::DensityKappa,     "density_kappa",     StepPlace::Substep,    StepNode::Kernel,           false, {},                    false, "the solve's velocity update", StepScope::DensityLoop},
    {FluidStep::Diagnostics,      "diagnostics",       StepPlace::FrameEnd,   StepNode::Kernel,           true,  {},                    true,  ""},
    {FluidStep::WriteRender,      "write_render",      StepPlace::FrameEnd,   StepNode::Kernel,           true,  {},                    false, "the renderer draws this buffer every frame"},
    {FluidStep::Colour,           "colour",            StepPlace::FrameEnd,   StepNode::Kernel,           true,  FluidToggle::Colour,   false, ""},
    {FluidStep::Report,           "report",            StepPlace::FrameEnd,   StepNode::Kernel,           false, {},                    false, "the host reads the frame's substeps, dt and blow-up from it"},
};
// clang-format on

constexpr const FluidStepRow& stepRow(FluidStep step) { return kFluidSteps[static_cast<std::size_t>(step)]; }
constexpr const FluidStepRow* findStep(std::string_view name) { // nullptr: no such step
  for (const FluidStepRow& row : kFluidSteps)
    if (row.name == name) return &row;
  return nullptr;
}

// The kernel row of that name (--inject kernel-fail's STEP), or nullptr: none, or not a kernel node.
constexpr const FluidStepRow* findKernelStep(std::string_view name) {
  const FluidStepRow* row = findStep(name);
  return row != nullptr && row->node == StepNode::Kernel ? row : nullptr;
}

// Whether a row's node runs with this solver (a SWITCH branch's rows and the solve loops' only with theirs).
constexpr bool runsWith(const FluidStepRow& row, FluidSolver solver) {
  switch (row.scope) {
  case StepScope::Top:
  case StepScope::Resort:
  case StepScope::KeepOrder: return true;
  case StepScope::Wcsph: return solver == FluidSolver::Wcsph;
  default: return solver == FluidSolver::Dfsph;
  }
}

// Calls fn(row) for the rows of `place` in `scope` in execution order, a SWITCH row followed by its branches' rows
// (Wcsph's, then Dfsph's), a WHILE row by its body's and the IF row by its branches' (IF, then ELSE); `solver`
// (nullopt: both) limits the SWITCH's branches to one.
template <typename Fn>
constexpr void forEachRowInOrder(StepPlace place, std::optional<FluidSolver> solver, Fn&& fn,
                                 StepScope scope = StepScope::Top) {
  for (const FluidStepRow& row : kFluidSteps) {
    if (row.place != place || row.scope != scope) continue;
    fn(row);
    if (row.body != StepScope::Top) forEachRowInOrder(place, solver, fn, row.body);
    if (row.orElse != StepScope::Top) forEachRowInOrder(place, solver, fn, row.orElse);
    if (row.node != StepNode::SolverSwitch) continue;
    if (solver != FluidSolver::Dfsph) forEachRowInOrder(place, solver, fn, StepScope::Wcsph);
    if (solver != FluidSolver::Wcsph) forEachRowInOrder(place, solver, fn, StepScope::Dfsph);
  }
}

// Whether a switch enables and disables nodes (else it is a kernel argument: a node update).
constexpr bool toggleIsNode(FluidToggle toggle) {
  for (const FluidStepRow& row : kFluidSteps)
    if (row.toggle == toggle) return true;
  return false;
}

// The table's invariants, checked at build time: row i is step i; a row is togglable exactly when it has a switch;
// the places come in frame order; only substep rows sit in a nested scope, only a WHILE or IF row has a body and only
// the IF row an ELSE branch.
constexpr bool stepTableConsistent() {
  StepPlace last = StepPlace::FrameStart;
  for (std::size_t i = 0; i < std::size(kFluidSteps); ++i) {
    const FluidStepRow& row = kFluidSteps[i];
    if (static_cast<std::size_t>(row.step) != i) return false;
    if (row.whyNot.empty() != (row.toggle.has_value() || row.diagnostics)) return false;
    if (row.place < last) return false;
    if (row.scope != StepScope::Top && row.place != StepPlace::Substep) return false;
    const bool nests = row.node == StepNode::SolveWhile || row.node == StepNode::ResortIf;
    if (nests != (row.body != StepScope::Top)) return false;
    if ((row.node == StepNode::ResortIf) != (row.orElse != StepScope::Top)) return false;
    last = row.place;
  }
  return true;
}
static_assert(stepTableConsistent(),
              "kFluidSteps: row i must be FluidStep i, in frame order, with a reason exactly "
              "when it has no switch");
static_assert(static_cast<std::size_t>(FluidStep::Report) + 1 == std::size(kFluidSteps), "a FluidStep without a row");

} // namespace graphsim::fluid
