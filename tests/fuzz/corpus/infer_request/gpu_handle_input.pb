
addoneseed*+
xFP32"
vkserve_gpu_handlenope