// Sanitizer builds only (GRAPHSIM_SANITIZE, CMakeLists.txt adds this file to every executable): dlclose() does
// nothing, so the Vulkan driver and layers that the loader dlopen()s stay mapped until exit.
//
// Why: LeakSanitizer runs at exit, after vkDestroyInstance has dlclose()d them. Their leaks are then reported with
// "<unknown module>" frames, which no suppression can match; the only alternatives would be to switch leak
// detection off or to suppress every leak. Kept loaded, they are reported as libVkLayer_khronos_validation.so and
// the like, and tests/sanitizers/lsan.supp names exactly those libraries. Our own leaks stay fatal.
//
// The executable's definition takes precedence over libc's for every shared library (the executable comes first in
// symbol lookup, and the linker exports it because libvulkan.so refers to dlclose). <dlfcn.h> is not included: its
// declaration carries a noexcept this definition need not repeat.
extern "C" int dlclose(void* /*handle*/) { return 0; }
