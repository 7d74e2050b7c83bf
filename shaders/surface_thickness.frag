#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The liquid's thickness along each pixel's ray: every sphere adds the chord the ray cuts through it, and that chord
// times the sphere's colour attribute (blended additively; their ratio is the attribute's mean along the ray, which
// the shading turns into foam). Depth tested against the scene, not written.
layout(push_constant) uniform PushBlock {
  SurfacePushConstants pc;
};

layout(location = 0) in vec2 inQuad;
layout(location = 1) flat in vec4 inCentre; // xyz; w: the colour attribute

layout(location = 0) out vec2 outThickness;

void main() {
  float r = pc.cameraRight.w;
  vec3 onQuad = inCentre.xyz + r * (inQuad.x * pc.cameraRight.xyz + inQuad.y * pc.cameraUp.xyz);
  vec3 ray = normalize(onQuad - pc.eye.xyz);
  vec3 toCentre = inCentre.xyz - pc.eye.xyz;
  float along = dot(toCentre, ray);
  float miss2 = dot(toCentre, toCentre) - along * along;
  if (miss2 > r * r) discard;
  float chord = 2.0 * sqrt(r * r - miss2);
  outThickness = vec2(chord, chord * clamp(inCentre.w, 0.0, 1.0));
}
