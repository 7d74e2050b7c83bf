#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The liquid's thickness along each pixel's ray: every sphere adds the chord the ray cuts through it (blended
// additively). Depth tested against the scene, not written.
layout(push_constant) uniform PushBlock {
  SurfacePushConstants pc;
};

layout(location = 0) in vec2 inQuad;
layout(location = 1) flat in vec3 inCentre;

layout(location = 0) out float outThickness;

void main() {
  float r = pc.cameraRight.w;
  vec3 onQuad = inCentre + r * (inQuad.x * pc.cameraRight.xyz + inQuad.y * pc.cameraUp.xyz);
  vec3 ray = normalize(onQuad - pc.eye.xyz);
  vec3 toCentre = inCentre - pc.eye.xyz;
  float along = dot(toCentre, ray);
  float miss2 = dot(toCentre, toCentre) - along * along;
  if (miss2 > r * r) discard;
  outThickness = 2.0 * sqrt(r * r - miss2);
}
