#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// Sphere impostor: the quad becomes a lit sphere by reconstructing the view-space normal from the quad coordinate.
layout(push_constant) uniform PushBlock {
  ParticlePushConstants pc;
};

layout(location = 0) in vec2 inQuad;
layout(location = 1) in float inAttribute;

layout(location = 0) out vec4 outColour;

// Cool blue (slow / low) -> white -> warm orange (fast / high): reads well for galaxies on a dark background.
vec3 colourMap(float t) {
  t = clamp(t, 0.0, 1.0);
  const vec3 cool = vec3(0.22, 0.45, 1.00);
  const vec3 white = vec3(1.00, 0.97, 0.92);
  const vec3 warm = vec3(1.00, 0.52, 0.10);
  return t < 0.5 ? mix(cool, white, t * 2.0) : mix(white, warm, t * 2.0 - 1.0);
}

// Fluid: deep blue (slow / low) -> cyan -> white (fast / high), like water lit from above.
vec3 fluidColourMap(float t) {
  t = clamp(t, 0.0, 1.0);
  const vec3 deep = vec3(0.02, 0.10, 0.45);
  const vec3 cyan = vec3(0.10, 0.80, 1.00);
  const vec3 white = vec3(1.00, 1.00, 1.00);
  return t < 0.5 ? mix(deep, cyan, t * 2.0) : mix(cyan, white, t * 2.0 - 1.0);
}

void main() {
  float r2 = dot(inQuad, inQuad);
  if (r2 > 1.0) {
    discard;
  }
  // View space, z towards the viewer; quad +y is camera up.
  vec3 normal = vec3(inQuad, sqrt(1.0 - r2));
  const vec3 lightDir = normalize(vec3(-0.45, 0.6, 0.65)); // key light from the upper left, in front
  float lambert = max(dot(normal, lightDir), 0.0);
  float rim = pow(1.0 - normal.z, 3.0);

  float t = inAttribute * pc.colourScale;
  vec3 base = pc.palette == GRAPHSIM_PALETTE_FLUID ? fluidColourMap(t) : colourMap(t);
  vec3 colour = base * (0.16 + 0.84 * lambert) + rim * 0.3 * base;
  outColour = vec4(colour, 1.0);
}
