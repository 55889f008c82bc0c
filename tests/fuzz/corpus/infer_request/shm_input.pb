
addoneseed*k
xFP32"
shared_memory_offset"!
shared_memory_region	region0"
shared_memory_byte_size2
y