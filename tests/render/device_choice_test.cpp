// Device choice: requests that cannot be met fail with EnvironmentError naming what and listing every device.
#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

void expectMessageListsDevices(const std::string& message, const std::string& what) {
  EXPECT_NE(message.find(what), std::string::npos) << message;
  EXPECT_NE(message.find("Vulkan devices seen"), std::string::npos) << message;
  for (const PhysicalDeviceInfo& device : listPhysicalDevices()) {
    EXPECT_NE(message.find(device.name), std::string::npos) << message;
    EXPECT_NE(message.find(formatUuid(device.uuid)), std::string::npos) << message;
  }
}

TEST_F(RenderTest, DefaultChoiceReportsTheDevice) {
  const std::vector<PhysicalDeviceInfo> devices = listPhysicalDevices();
  ASSERT_FALSE(devices.empty());
  EXPECT_LT(context->info().index, static_cast<int>(devices.size()));
  EXPECT_EQ(context->info().uuid, devices[static_cast<std::size_t>(context->info().index)].uuid);
  EXPECT_NE(context->device(), VK_NULL_HANDLE);
  EXPECT_NE(context->queue(), VK_NULL_HANDLE);
}

TEST_F(RenderTest, UuidRequestPicksThatDevice) {
  const std::vector<PhysicalDeviceInfo> devices = listPhysicalDevices();
  ASSERT_FALSE(devices.empty());
  DeviceRequest request;
  request.uuid = devices.back().uuid;
  request.validation = true;
  VulkanContext chosen(request);
  EXPECT_EQ(chosen.info().uuid, devices.back().uuid);
  EXPECT_EQ(chosen.validationMessages(), 0u);
}

TEST_F(RenderTest, BogusUuidNamesItAndListsDevices) {
  DeviceRequest request;
  request.uuid = Uuid{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  request.validation = true;
  try {
    VulkanContext bogus(request);
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& error) {
    expectMessageListsDevices(error.what(), "no Vulkan device has UUID deadbeef-0001-0203-0405-060708090a0b");
  }
}

TEST_F(RenderTest, OutOfRangeIndexNamesItAndListsDevices) {
  DeviceRequest request;
  request.index = static_cast<int>(listPhysicalDevices().size());
  request.validation = true;
  try {
    VulkanContext bogus(request);
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& error) {
    expectMessageListsDevices(error.what(), "index " + std::to_string(*request.index) + " is out of range");
  }
  request.index = -1;
  EXPECT_THROW(VulkanContext{request}, EnvironmentError);
}

TEST(FormatUuid, PrintsLikeNvidiaSmi) {
  Uuid uuid{};
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    uuid[i] = static_cast<std::uint8_t>(0x10 + i);
  }
  EXPECT_EQ(formatUuid(uuid), "10111213-1415-1617-1819-1a1b1c1d1e1f");
}

} // namespace
} // namespace graphsim::render::test
