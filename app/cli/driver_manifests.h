// The Vulkan driver manifests named in the environment (VK_ICD_FILENAMES, VK_DRIVER_FILES, VK_ADD_DRIVER_FILES),
// checked before any Vulkan call: the loader answers a manifest that is not JSON (`garbage{`) with
// VK_ERROR_OUT_OF_HOST_MEMORY from vkCreateInstance, which reads as an internal error (exit 1) instead of what it
// is, a broken driver set-up (exit 3).
#pragma once

namespace graphsim::app {

// Throws EnvironmentError (exit 3) naming the variable, the file and the parse error when a manifest named there
// is a file that is not valid JSON. Directories, missing files and valid manifests are the loader's to judge.
void checkVulkanDriverManifests();

} // namespace graphsim::app
