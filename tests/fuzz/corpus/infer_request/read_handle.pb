seed"
vkserve_release"
vkserve_read_handleabc