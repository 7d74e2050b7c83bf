#version 450

// One triangle covering the viewport; uv runs 0..1 across it (top row first, as Vulkan's framebuffer).
layout(location = 0) out vec2 outUv;

void main() {
  outUv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
  gl_Position = vec4(outUv * 2.0 - 1.0, 0.0, 1.0);
}
