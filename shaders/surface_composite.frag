#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The liquid over the scene behind it. Where the smoothed eye depth is 0 the scene shows as drawn. Elsewhere:
// the view-space position from the depth, the normal from its neighbours (the smaller difference on each axis, so
// silhouettes do not bend it), then Fresnel (Schlick, water's F0 = 0.02) between a reflected sky and what the
// liquid passes on: the scene refracted through it, dimmed by Beer-Lambert absorption over the thickness, behind
// the light the liquid itself scatters back (its colour, lit by the key light, growing with the thickness); plus a
// specular highlight; and foam, where the liquid along the ray moves fast (its mean colour attribute past 0.6).
layout(push_constant) uniform PushBlock {
  CompositePushConstants pc;
};

layout(set = 0, binding = 0) uniform sampler2D sceneColour;
layout(set = 0, binding = 1) uniform sampler2D eyeDepth;
layout(set = 0, binding = 2) uniform sampler2D thickness;

layout(location = 0) in vec2 inUv;
layout(location = 0) out vec4 outColour;

const vec3 kZenith = vec3(0.30, 0.50, 0.85);
const vec3 kHorizon = vec3(0.80, 0.86, 0.92);
const vec3 kGround = vec3(0.10, 0.10, 0.12);
const vec3 kScatter = vec3(0.06, 0.34, 0.46); // the liquid's own colour, lit, where it is deep
const float kScatterPerMetre = 20.0;           // how fast that colour covers what lies behind

vec3 viewPosition(ivec2 pixel, float depth) {
  vec2 ndc = (vec2(pixel) + 0.5) / pc.frustum.zw * 2.0 - 1.0;
  return vec3(ndc.x * pc.frustum.x, -ndc.y * pc.frustum.y, -1.0) * depth;
}

// The smaller of the forward and backward differences along `axis`, skipping a side without liquid.
vec3 difference(ivec2 pixel, vec3 centre, ivec2 axis) {
  ivec2 size = ivec2(pc.frustum.zw);
  ivec2 a = clamp(pixel + axis, ivec2(0), size - 1), b = clamp(pixel - axis, ivec2(0), size - 1);
  float da = texelFetch(eyeDepth, a, 0).r, db = texelFetch(eyeDepth, b, 0).r;
  vec3 forward = viewPosition(a, da) - centre, backward = centre - viewPosition(b, db);
  if (da <= 0.0) return backward;
  if (db <= 0.0) return forward;
  return abs(forward.z) < abs(backward.z) ? forward : backward;
}

vec3 sky(vec3 direction) {
  return direction.y >= 0.0 ? mix(kHorizon, kZenith, sqrt(direction.y)) : mix(kHorizon, kGround, sqrt(-direction.y));
}

void main() {
  ivec2 pixel = ivec2(gl_FragCoord.xy);
  float depth = texelFetch(eyeDepth, pixel, 0).r;
  if (depth <= 0.0) {
    outColour = vec4(texture(sceneColour, inUv).rgb, 1.0);
    return;
  }
  vec3 p = viewPosition(pixel, depth);
  vec3 normal = normalize(cross(difference(pixel, p, ivec2(1, 0)), difference(pixel, p, ivec2(0, -1))));
  vec3 toEye = normalize(-p);
  if (dot(normal, toEye) < 0.0) normal = -normal;

  vec2 chords = texelFetch(thickness, pixel, 0).rg;
  float t = chords.r;
  float foam = pc.lightView.w * smoothstep(0.6, 1.0, chords.g / max(t, 1e-6));
  float cosine = max(dot(normal, toEye), 0.0);
  float fresnel = 0.02 + 0.98 * pow(1.0 - cosine, 5.0);
  vec3 reflected = sky(mat3(pc.viewToWorld) * reflect(-toEye, normal));
  vec2 bent = inUv + vec2(normal.x, -normal.y) * pc.absorption.w * t;
  vec3 refracted = texture(sceneColour, bent).rgb * exp(-pc.absorption.rgb * t);
  float lit = 0.45 + 0.55 * max(dot(normal, pc.lightView.xyz), 0.0);
  vec3 passed = mix(refracted, kScatter * lit, 1.0 - exp(-kScatterPerMetre * t));
  vec3 halfway = normalize(pc.lightView.xyz + toEye);
  float specular = pow(max(dot(normal, halfway), 0.0), 80.0);
  vec3 surface = mix(mix(passed, reflected, fresnel), vec3(0.9, 0.95, 1.0) * lit, foam);
  outColour = vec4(surface + vec3(0.8 * specular), 1.0);
}
