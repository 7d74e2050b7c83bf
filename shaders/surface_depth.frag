#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The front-most sphere surface: its eye depth into the colour attachment and its true depth into the depth buffer,
// so the nearest sphere wins per pixel.
layout(push_constant) uniform PushBlock {
  SurfacePushConstants pc;
};

layout(location = 0) in vec2 inQuad;
layout(location = 1) flat in vec4 inCentre; // xyz; w: the colour attribute (the thickness pass's)

layout(location = 0) out float outEyeDepth;

void main() {
  float r2 = dot(inQuad, inQuad);
  if (r2 > 1.0) discard;
  float towardsEye = sqrt(1.0 - r2);
  vec3 p = inCentre.xyz + pc.cameraRight.w * (inQuad.x * pc.cameraRight.xyz + inQuad.y * pc.cameraUp.xyz -
                                          towardsEye * pc.cameraForward.xyz);
  vec4 clip = pc.viewProj * vec4(p, 1.0);
  gl_FragDepth = clip.z / clip.w;
  outEyeDepth = dot(p - pc.eye.xyz, pc.cameraForward.xyz);
}
